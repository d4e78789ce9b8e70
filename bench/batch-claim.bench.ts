/**
 * Batch lines never slow interactive work (docs/batch.md, "The claim order"): the interactive
 * claim-to-start p99 (submit to the generator's start) with a 1,000-line batch queued in the same
 * lane, over the same p99 without it. A generator that makes nothing and takes `--task-ms` (40) per
 * task, 4 slots in one process, interactive submits at a fixed rate that keeps the slots half busy
 * (one every task-ms ÷ 2). Aim: ≤ 1.10.
 *
 * How the statistic is kept honest on a shared machine (docs/performance.md, "The batch lane"):
 * - the two conditions alternate in short segments (`--segment` measured submits each, after a
 *   warm-up of 10 that are not counted), in the order A B B A, so a stall of the machine or of this
 *   process lands on both alike; each condition gets `--submits` measured submits per round;
 * - times are the process's monotonic clock (performance.now), taken by the bench itself just before
 *   the submit and when the generator is called: no whole-millisecond columns;
 * - p50, p90 and p99 are printed with their ratios, per round and over every round's samples pooled
 *   (the headline: the p99 ratio of the pooled samples); the event-loop delay of this process during
 *   each condition is printed beside them, as the share of the latency that is the bench's own stall,
 *   and so is the CPU this process used in each, which tells more work apart from a slower claim.
 * `--lines 0` runs the same thing with no batch on either side: its ratios are the noise floor.
 *
 *   node --import tsx bench/batch-claim.bench.ts [--submits 200] [--segment 50] [--lines 1000] [--rounds 3]
 *     [--task-ms 40] [--db sqlite|postgres]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pino from 'pino';
import { sql } from 'kysely';
import { openSqlDatabase, type SqlDatabase } from '../packages/server/src/store/sql/database.ts';
import { SqlTaskStore } from '../packages/server/src/store/sql/sql-task-store.ts';
import { SqlAccountStore } from '../packages/server/src/store/sql/sql-account-store.ts';
import { SqlFileStore } from '../packages/server/src/store/sql/sql-file-store.ts';
import { LocalDiskBlobStore } from '../packages/server/src/blobs/local-disk-blob-store.ts';
import { MediaInputs } from '../packages/server/src/engine/inputs/media-inputs.ts';
import { VideoInputs } from '../packages/server/src/engine/inputs/video-inputs.ts';
import { TaskEvents } from '../packages/server/src/domain/task-events.ts';
import type { ServiceTier } from '../packages/server/src/domain/task.ts';
import { createWorker } from '../packages/server/src/engine/worker.ts';
import { noMetrics } from '../packages/server/src/engine/engine-metrics.ts';
import { uuidv7 } from '../packages/server/src/domain/ids.ts';
import { resolveFfmpegBinaries } from '../packages/server/src/media/ffmpeg-binaries.ts';
import type { Generator } from '../packages/server/src/generators/generator.ts';
import { FULL, load, median, numberArg } from './support/paired.ts';
import { createPostgresDatabase, createSqliteDatabase } from '../packages/server/test/support/databases.ts';

const SUBMITS = numberArg('submits', FULL ? 400 : 200);
const SEGMENT = numberArg('segment', 50);
const WARMUP = 10;
const LINES = numberArg('lines', 1000);
const ROUNDS = numberArg('rounds', FULL ? 5 : 3);
const TASK_MS = numberArg('task-ms', 40);
const SLOTS = 4;
const params = { prompt: 'p', images: [], duration: 1, aspectRatio: '16:9', width: 64, height: 36, fps: 24 };
const unused = async (): Promise<never> => {
  throw new Error('no inputs');
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];
const QUANTILES = [
  ['p50', 0.5],
  ['p90', 0.9],
  ['p99', 0.99],
] as const;

/** One condition's samples (ms) and this process's event-loop delay while they were taken. */
interface Condition {
  latencies: number[];
  loopDelay: ReturnType<typeof monitorEventLoopDelay>;
  /** CPU time this process spent, and the wall time, over the condition's segments (ms). */
  cpuMs: number;
  wallMs: number;
}

/** The lanes of one database: each condition has its own, reused by each of its segments. */
interface Bench {
  database: SqlDatabase;
  tasks: SqlTaskStore;
  accountId: string;
  sample: string;
}

let segments = 0;

/**
 * One segment in `lane`: a worker of its own starts on it, `WARMUP` then `count` interactive submits
 * at the fixed rate, each measured from just before its submit to the generator's call for it; the
 * segment ends once every interactive task it submitted has finished, so none is left to the next.
 * The batch lines still running are handed back to the queue when the worker stops.
 */
async function segment(bench: Bench, lane: string, count: number, into: Condition, pooled: Condition) {
  const { database, tasks, sample } = bench;
  const dir = await mkdtemp(join(tmpdir(), 'vidgen-bench-batch-'));
  const blobs = new LocalDiskBlobStore(join(dir, 'blobs'));
  const events = new TaskEvents();
  const started = new Map<string, number>();
  const finished = new Map<string, () => void>();
  const generator: Generator = {
    kinds: ['generate'],
    generate: async (job) => {
      started.set(job.taskId, performance.now());
      await sleep(TASK_MS);
      setImmediate(() => finished.get(job.taskId)?.());
      return { path: sample };
    },
  };
  const worker = createWorker({
    tasks,
    blobs,
    events,
    generators: { [lane]: generator },
    metrics: noMetrics,
    logger: pino({ level: 'silent' }),
    clock: Date.now,
    inputs: new MediaInputs({
      ...{ files: new SqlFileStore(database.db), blobs, fetch: { image: unused, audio: unused }, checkAudio: unused },
    }),
    videos: new VideoInputs({ files: new SqlFileStore(database.db), blobs, tasks, fetch: unused, probe: unused }),
    owner: `bench-${lane}-${++segments}`,
    lanes: { [lane]: { slots: SLOTS, deadlineMs: 60_000 } },
    maxRunningPerAccount: 0,
    lowTierShare: 0.25,
    leaseMs: 30_000,
    heartbeatMs: 10_000,
    pollMs: 50,
    maxAttempts: 3,
    retentionMs: 3_600_000,
    workRoot: dir,
    normalizeImage: async (b) => b,
    verifyVideo: async () => undefined,
  });
  const [cpu, wall] = [process.cpuUsage(), performance.now()];
  worker.start();
  // Fixed rate: the n-th submit at start + n × interval, however long the previous one took.
  const interval = TASK_MS / 2;
  const submitted: Array<{ id: string; at: number; done: Promise<void> }> = [];
  const begin = performance.now();
  for (let i = 0; i < WARMUP + count; i++) {
    const due = begin + i * interval - performance.now();
    if (due > 0) await sleep(due);
    if (i === WARMUP) for (const c of [into, pooled]) c.loopDelay.enable();
    const id = uuidv7();
    const done = new Promise<void>((resolve) => finished.set(id, resolve));
    const at = performance.now();
    await insert(bench, lane, 'default', id);
    events.taskQueued(lane);
    submitted.push({ id, at, done });
  }
  await Promise.all(submitted.map((s) => s.done));
  for (const c of [into, pooled]) c.loopDelay.disable();
  // Finished as the store sees it too: a completion still being written when the worker stops would
  // be handed back and run again in the lane's next segment.
  for (const { id } of submitted) while ((await tasks.get(id))?.status !== 'succeeded') await sleep(5);
  for (const { id, at } of submitted.slice(WARMUP)) into.latencies.push(started.get(id)! - at);
  await worker.stop(0);
  const used = process.cpuUsage(cpu);
  for (const c of [into, pooled]) {
    c.cpuMs += (used.user + used.system) / 1000;
    c.wallMs += performance.now() - wall;
  }
  await rm(dir, { recursive: true, force: true });
}

function insert(bench: Bench, lane: string, serviceTier: ServiceTier, id = uuidv7()) {
  return bench.tasks.insert({
    id,
    accountId: bench.accountId,
    family: 'B',
    kind: 'generate',
    model: 'm',
    backend: lane,
    params,
    createdAt: Date.now(),
    serviceTier,
  });
}

/** Tops the batch lane up to `LINES` queued lines (the lines a segment ran are replaced). */
async function topUp(bench: Bench, lane: string) {
  const { queued } = await bench.database.db
    .selectFrom('tasks')
    .select((eb) => eb.fn.countAll<number>().as('queued'))
    .where('backend', '=', lane)
    .where('status', '=', 'queued')
    .executeTakeFirstOrThrow();
  for (let i = Number(queued); i < LINES; i++) await insert(bench, lane, 'batch');
}

const fresh = (): Condition => ({
  latencies: [],
  loopDelay: monitorEventLoopDelay({ resolution: 1 }),
  cpuMs: 0,
  wallMs: 0,
});
const busy = (c: Condition) => `${Math.round((100 * c.cpuMs) / c.wallMs)}%`;
const ms = (v: number) => (v < 10 ? v.toFixed(2) : v.toFixed(1));
const loopP99 = (h: { percentile(p: number): number }) => ms(h.percentile(99) / 1e6);

/** The quantiles of both conditions and their ratios, in one line. */
function describe(alone: number[], batch: number[]): { line: string; p99: number } {
  const parts = QUANTILES.map(([name, q]) => {
    const [a, b] = [percentile(alone, q), percentile(batch, q)];
    return { name, a, b, ratio: b / a };
  });
  const line = parts.map((p) => `${p.name} ${ms(p.a)} / ${ms(p.b)} ms (${p.ratio.toFixed(2)})`).join(', ');
  return { line, p99: parts[2].ratio };
}

const sampleDir = await mkdtemp(join(tmpdir(), 'vidgen-bench-sample-'));
const sample = join(sampleDir, 'sample.mp4');
execFileSync(resolveFfmpegBinaries({}).ffmpeg, [
  '-loglevel',
  'error',
  '-f',
  'lavfi',
  '-i',
  'color=c=black:s=64x36:r=24:d=1',
  '-pix_fmt',
  'yuv420p',
  '-c:v',
  'libx264',
  '-y',
  sample,
]);
console.log(
  `${SUBMITS} interactive submits a side per round in segments of ${SEGMENT}, one every ${TASK_MS / 2} ms, ` +
    `tasks of ${TASK_MS} ms, ${SLOTS} slots; with and without ${LINES} batch lines queued`,
);
const onlyDb = process.argv
  .find((a, i) => process.argv[i - 1] === '--db' || a.startsWith('--db='))
  ?.replace('--db=', '');
for (const [name, create] of [
  ['SQLite', createSqliteDatabase],
  ['PostgreSQL', createPostgresDatabase],
] as const) {
  if (onlyDb && !name.toLowerCase().startsWith(onlyDb.toLowerCase())) continue;
  const created = await create();
  if (typeof created === 'string') {
    console.log(`${name}: skipped (${created})`);
    continue;
  }
  const database = await openSqlDatabase(created.location);
  const accountId = (await new SqlAccountStore(database.db).ensureAccount('bench', null, Date.now())).id;
  const bench: Bench = { database, tasks: new SqlTaskStore(database.db, database.dialect, []), accountId, sample };
  const all = { alone: fresh(), batch: fresh() };
  // The tables as a running database has them: PostgreSQL's autovacuum analyzes a table within a
  // minute of its first fifty changes, and this run is about as long. Before that, with no
  // statistics, its plans for the claim probed the (status, model) index and read past every queued
  // line (docs/batch.md, "What a queued batch cost a claim").
  await topUp(bench, 'batch');
  if (database.dialect.name === 'postgres') await sql`ANALYZE tasks`.execute(database.db);
  const ratios: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const now = { alone: fresh(), batch: fresh() };
    // A B B A …: each condition runs first and last equally often, so a trend in the load cancels.
    const order = Array.from({ length: Math.ceil(SUBMITS / SEGMENT) * 2 }, (_, i) =>
      (i % 4 === 0 || i % 4 === 3) === (round % 2 === 0) ? 'alone' : 'batch',
    );
    const left = { alone: SUBMITS, batch: SUBMITS };
    for (const which of order) {
      const count = Math.min(SEGMENT, left[which]);
      left[which] -= count;
      if (which === 'batch') await topUp(bench, 'batch');
      await segment(bench, which, count, now[which], all[which]);
    }
    for (const which of ['alone', 'batch'] as const) all[which].latencies.push(...now[which].latencies);
    const { line, p99 } = describe(now.alone.latencies, now.batch.latencies);
    ratios.push(p99);
    console.log(
      `  ${name} round ${round + 1}: alone / with the batch: ${line}; ` +
        `event-loop delay p99 ${loopP99(now.alone.loopDelay)} / ${loopP99(now.batch.loopDelay)} ms, ${load()}`,
    );
  }
  const { line, p99 } = describe(all.alone.latencies, all.batch.latencies);
  console.log(
    `${name}, ${all.alone.latencies.length} submits a side, pooled: ${line}; ` +
      `event-loop delay p99 ${loopP99(all.alone.loopDelay)} / ${loopP99(all.batch.loopDelay)} ms; ` +
      `this process's CPU ${busy(all.alone)} / ${busy(all.batch)} of one core`,
  );
  console.log(
    `${name}: interactive claim-to-start p99 with ÷ without a batch queued: ${p99.toFixed(2)} ` +
      `(median of the rounds' ${median(ratios).toFixed(2)}: ${ratios.map((r) => r.toFixed(2)).join(', ')})`,
  );
  await database.close();
  await created.drop();
}
await rm(sampleDir, { recursive: true, force: true });
