#!/usr/bin/env node
// Runs every *.test.ts under packages/*/test and test/ with Node's built-in test runner.
// Node 20 cannot glob for TypeScript test files itself, so this script finds them.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const roots = ['test', ...readdirSync('packages').map((p) => join('packages', p, 'test'))];
const filter = process.argv.slice(2);

function find(dir) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : find(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

const files = roots
  .flatMap(find)
  .filter((f) => filter.length === 0 || filter.some((x) => f.includes(x)))
  .sort();
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
// Tests run the SDK's built JavaScript where users do (the `vidgen` bin, the server, the console), and
// the spawned `vidgen-server` runs the server's build as `npm start` does, both rebuilt when stale.
for (const script of ['packages/client/scripts/build-if-stale.mjs', 'packages/server/scripts/build-if-stale.mjs']) {
  const build = spawnSync(process.execPath, [script], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
// No --test-timeout: a test waits for conditions, never for a time, so a clock limit would only fail a
// correct test on a busy machine (a loaded run takes several times a quiet one). A hung run is ended
// by its caller (CI's job limit, Ctrl-C); either way the leak check ends what each file started.
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--import', './scripts/leak-check.mjs', '--test', '--test-concurrency=2', ...files],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
