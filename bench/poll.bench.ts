/**
 * Poll throughput: requests/s of `GET /v1/videos/{id}` (auth + task read + wire mapping)
 * against `GET /healthz` (a bare route through the same server and hooks), measured in the
 * same run against one server process configured as `npm start` is (request logs on).
 * Prints the ratio; aim ≥ 0.6.
 *
 *   node --import tsx bench/poll.bench.ts [--seconds 10] [--connections 32]
 */
import autocannon from 'autocannon';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer, runServerCommand } from '../test/e2e/support/process.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const seconds = arg('seconds', 10);
const connections = arg('connections', 32);

async function measure(url: string, headers: Record<string, string>): Promise<{ rps: number; p99: number; errors: number }> {
  const result = await autocannon({ url, connections, duration: seconds, headers });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

const dataDir = await mkdtemp(join(tmpdir(), 'vidgen-bench-poll-'));
const env = { VIDGEN_DATA_DIR: dataDir, VIDGEN_ROLE: 'api' };
const key = (await runServerCommand(['keys', 'create', '--account', 'bench'], env)).stdout.trim();
const server = await spawnServer(env);
try {
  const submit = await fetch(`${server.url}/v1/video/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'video-v1-5s', prompt: 'bench' }),
  });
  const { task_id } = (await submit.json()) as { task_id: string };
  // Warm up both routes so JIT and caches are equal before measuring.
  await measure(`${server.url}/healthz`, {});
  const bare = await measure(`${server.url}/healthz`, {});
  const poll = await measure(`${server.url}/v1/videos/${task_id}`, { authorization: `Bearer ${key}` });
  console.log(`connections=${connections} seconds=${seconds} (one server process, API role, SQLite)`);
  console.log(`bare route  GET /healthz            ${bare.rps.toFixed(0)} req/s  p99 ${bare.p99} ms  errors ${bare.errors}`);
  console.log(`poll        GET /v1/videos/{id}     ${poll.rps.toFixed(0)} req/s  p99 ${poll.p99} ms  errors ${poll.errors}`);
  console.log(`ratio poll/bare = ${(poll.rps / bare.rps).toFixed(2)}  (aim ≥ 0.60)`);
} finally {
  await server.stop();
  await rm(dataDir, { recursive: true, force: true });
}
