#!/usr/bin/env node
// The test runner and the bench runner call this first, so the `vidgen-server` bin they spawn runs a
// build of exactly the sources under test (the bin would fall back to tsx otherwise: same code, but
// not what `npm start` runs). About two seconds when something changed, nothing otherwise.
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { SERVER_ROOT, buildIsFresh } from '../bin/fresh-build.mjs';

if (!buildIsFresh()) {
  const local = join(SERVER_ROOT, 'node_modules/.bin/tsup');
  const bin = statSync(local, { throwIfNoEntry: false }) ? local : join(SERVER_ROOT, '../../node_modules/.bin/tsup');
  const result = spawnSync(bin, ['--silent'], { cwd: SERVER_ROOT, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
