/**
 * Idle memory: the resident set of the `vidgen-server` process as `npm start` runs it (its build under
 * plain node, rebuilt first if stale; API and worker in one process, SQLite, local disk, a fresh data
 * directory), once it says it is running and has settled, against a bare Fastify process
 * (bench/support/bare-fastify.mjs) measured the same way in the same run. The bench starts the server
 * itself, so npm's own process above it under `npm start` (about 55 MB) is not counted
 * (docs/performance.md). Aim: ≤ 90 MB. Prints the medians of --rounds paired starts, the median of the
 * paired ratios and the load average.
 *
 *   node --import tsx bench/idle-rss.bench.ts [--rounds 3] [--settle-ms 8000] [--full: 5 rounds]
 *
 * Settling takes 8 s: the server gives its start-up young generation back once it has been idle
 * for V8's 5 s allocation-rate window (cli/release-startup-memory.ts); before that it is ~30 MB more.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer } from '../test/e2e/support/process.ts';
import { startBareFastify } from './support/bare-fastify.ts';
import { FULL, describeRatios, load, numberArg, paired } from './support/paired.ts';
import { rssOf } from './support/rss.ts';

const ROUNDS = numberArg('rounds', FULL ? 5 : 3);
const SETTLE_MS = numberArg('settle-ms', 8000);
const MB = 1024 * 1024;

const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

async function vidgenRss(): Promise<number> {
  const dataDir = await mkdtemp(join(tmpdir(), 'vidgen-bench-rss-'));
  const server = await spawnServer({ VIDGEN_DATA_DIR: dataDir });
  try {
    await settle();
    return rssOf(server.child.pid!);
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function bareRss(): Promise<number> {
  const bare = await startBareFastify();
  try {
    await settle();
    return rssOf(bare.child.pid!);
  } finally {
    await bare.stop();
  }
}

if (process.platform !== 'linux') {
  console.log('idle RSS: skipped, it reads /proc (Linux only)');
  process.exit(0);
}
const build = spawnSync(process.execPath, ['packages/server/scripts/build-if-stale.mjs'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
// Lower is better: the "ratio" printed is bare/vidgen; its inverse is how many bare processes one vidgen weighs.
const result = await paired(ROUNDS, bareRss, vidgenRss, true);
console.log(
  `idle RSS: bare Fastify ${(result.baseline / MB).toFixed(0)} MB | vidgen-server process (npm's own not counted) ${(result.subject / MB).toFixed(0)} MB (aim ≤ 90 MB) | ` +
    `vidgen is ${(1 / result.ratio).toFixed(2)}× bare; ${describeRatios(result)} (bare/vidgen) | ${load()}`,
);
