/**
 * Poll throughput: requests/s of `GET /v1/video/generations/{id}` for a finished task (auth, task
 * read, wire mapping, request log) against two baselines measured in the same run:
 *  - `GET /healthz` on the same server (same hooks and logging): aim ≥ 0.8;
 *  - a bare Fastify route in its own process (bench/support/bare-fastify.mjs): aim ≥ 0.5.
 * The server runs as `npm start` does (API and worker in one process, request log at info);
 * with --no-access-log it runs with VIDGEN_ACCESS_LOG=off. Ratios are medians of paired rounds,
 * printed with the load average.
 *
 *   node --import tsx bench/poll.bench.ts [--seconds 3] [--rounds 3] [--connections 16]
 *     [--no-access-log] [--full: 8 s, 5 rounds]
 */
import autocannon from 'autocannon';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serverWithDoneTask } from './support/done-task.ts';
import { startBareFastify } from './support/bare-fastify.ts';
import { FULL, describeRatios, load, numberArg, paired } from './support/paired.ts';

const SECONDS = numberArg('seconds', FULL ? 8 : 3);
const ROUNDS = numberArg('rounds', FULL ? 5 : 3);
const CONNECTIONS = numberArg('connections', 16);
const ACCESS_LOG = !process.argv.includes('--no-access-log');

async function rate(url: string, headers: Record<string, string> = {}): Promise<number> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, headers });
  if (result.errors + result.non2xx > 0)
    throw new Error(`${url}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
  return result.requests.average;
}

const dataDir = await mkdtemp(join(tmpdir(), 'vidgen-bench-poll-'));
const { server, key, id } = await serverWithDoneTask(dataDir, ACCESS_LOG ? {} : { VIDGEN_ACCESS_LOG: 'off' });
const bare = await startBareFastify();
try {
  const poll = () => rate(`${server.url}/v1/video/generations/${id}`, { authorization: `Bearer ${key}` });
  const health = () => rate(`${server.url}/healthz`);
  const route = () => rate(bare.url);
  // Warm up all three so JIT and caches are equal before measuring.
  for (const warm of [poll, health, route]) await warm();
  console.log(
    `${CONNECTIONS} connections, ${SECONDS} s per measurement, ${ROUNDS} paired rounds; vidgen as npm start (API + worker), access log ${ACCESS_LOG ? 'on' : 'off'}`,
  );
  const vsHealth = await paired(ROUNDS, health, poll);
  console.log(
    `poll of a done task vs GET /healthz: healthz ${vsHealth.baseline.toFixed(0)} req/s | poll ${vsHealth.subject.toFixed(0)} req/s | ${describeRatios(vsHealth)} (aim ≥ 0.8) | ${load()}`,
  );
  const vsBare = await paired(ROUNDS, route, poll);
  console.log(
    `poll of a done task vs a bare Fastify route: bare ${vsBare.baseline.toFixed(0)} req/s | poll ${vsBare.subject.toFixed(0)} req/s | ${describeRatios(vsBare)} (aim ≥ 0.5) | ${load()}`,
  );
} finally {
  await bare.stop();
  await server.stop();
  await rm(dataDir, { recursive: true, force: true });
}
