#!/usr/bin/env node
// Runs the build (packages/server/dist, made by `npm install` through `prepare`) with plain node: an
// idle server is about 38 MB leaner than the same sources run through tsx (docs/performance.md).
// Without a build, or when a source is newer than it, runs the TypeScript sources through tsx instead,
// so an edit is never served stale and a checkout runs with no build step.
import { BUILD_ENTRY, buildIsFresh } from './fresh-build.mjs';

async function load() {
  if (buildIsFresh()) return import(BUILD_ENTRY);
  const { register } = await import('tsx/esm/api');
  register();
  return import('../src/cli/server-cli.ts');
}

const { runServerCli } = await load();
try {
  await runServerCli(process.argv.slice(2), process.env);
} catch (err) {
  process.stderr.write(`vidgen-server: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
