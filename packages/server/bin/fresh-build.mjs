// Whether packages/server/dist (tsup.config.ts) holds the current sources. The bin runs the build only
// then, and the test runner rebuilds it when not, so nothing ever runs code older than its sources.
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SERVER_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const BUILD_ENTRY = join(SERVER_ROOT, 'dist/server-cli.js');

// Everything the build bundles, and what decides how it is built. The console's app/ is not bundled:
// it is read (and bundled for the browser) at run time.
const INPUTS = [
  'src',
  '../protocol/src',
  '../console/src/build',
  '../console/package.json',
  'tsup.config.ts',
  'package.json',
];

function newest(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

/** True when dist/ exists and is newer than every input (about 200 stats, a few milliseconds). */
export function buildIsFresh() {
  const built = statSync(BUILD_ENTRY, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  return built > 0 && INPUTS.every((input) => newest(join(SERVER_ROOT, input)) < built);
}
