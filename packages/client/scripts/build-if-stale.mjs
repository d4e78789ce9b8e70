#!/usr/bin/env node
// In this repository the server, the console bundle and the `vidgen` bin load the SDK's built
// JavaScript, like any user of the package. The test runner calls this first so a test never runs
// against a dist/ older than src/; only the JavaScript is rebuilt (about a second), types are not
// needed at run time (`npm run build` makes everything).
import { readdirSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

function builtAt() {
  try {
    return statSync(join(root, 'dist/cli/main.js')).mtimeMs;
  } catch {
    return 0;
  }
}

const sources = Math.max(newest(join(root, 'src')), statSync(join(root, 'tsup.config.ts')).mtimeMs);
if (sources > builtAt()) {
  const tsup = join(root, 'node_modules/.bin/tsup');
  const bin = statSync(tsup, { throwIfNoEntry: false }) ? tsup : join(root, '../../node_modules/.bin/tsup');
  const result = spawnSync(bin, ['--no-dts', '--no-clean', '--silent'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
