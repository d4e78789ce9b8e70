/**
 * Batch lines never slow interactive work (docs/batch.md, "The claim order"): the interactive
 * claim-to-start p99 (start − submit) with a 1,000-line batch queued in the same lane, over the
 * same p99 without it. A generator that makes nothing and takes `--task-ms` (40) per task, 4 slots in
 * one process, interactive submits at a fixed rate that keeps the slots half busy (one every
 * task-ms ÷ 2). Each round runs both back to back, alternating which goes first, in a lane of its
 * own; the ratio printed is the median of the rounds' ratios, with the load average beside it.
 * Aim: ≤ 1.10.
 *
 *   node --import tsx bench/batch-claim.bench.ts [--submits 150] [--lines 1000] [--rounds 3] [--task-ms 40]
 *     [--db sqlite|postgres]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import pino from 'pino';
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

const SUBMITS = numberArg('submits', FULL ? 400 : 150);
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

/** The interactive p99 (ms) in a lane of its own, with `lines` batch lines queued before the submits start. */
async function run(database: SqlDatabase, accountId: string, sample: string, lane: string, lines: number) {
  const tasks = new SqlTaskStore(database.db, database.dialect, []);
  const dir = await mkdtemp(join(tmpdir(), 'vidgen-bench-batch-'));
  const blobs = new LocalDiskBlobStore(join(dir, 'blobs'));
  const events = new TaskEvents();
  const generator: Generator = {
    kinds: ['generate'],
    generate: async () => (await sleep(TASK_MS), { path: sample }),
  };
  const insert = async (serviceTier: ServiceTier) => {
    const task = await tasks.insert({
      id: uuidv7(),
      accountId,
      family: 'B',
      kind: 'generate',
      model: 'm',
      backend: lane,
      params,
      createdAt: Date.now(),
      serviceTier,
    });
    events.taskQueued(lane);
    return task.id;
  };
  for (let i = 0; i < lines; i++) await insert('batch');
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
    owner: `bench-${lane}`,
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
  worker.start();
  // Fixed rate: the n-th submit at start + n × interval, however long the previous one took.
  const interval = TASK_MS / 2;
  const ids: string[] = [];
  const start = performance.now();
  for (let i = 0; i < SUBMITS; i++) {
    const due = start + i * interval - performance.now();
    if (due > 0) await sleep(due);
    ids.push(await insert('default'));
  }
  const latencies: number[] = [];
  for (const id of ids) {
    let task = await tasks.get(id);
    while (task?.status === 'queued') {
      await sleep(5);
      task = await tasks.get(id);
    }
    latencies.push(task!.startedAt! - task!.createdAt);
  }
  const batchRunning = (await tasks.laneStats()).running.length;
  await worker.stop(0);
  await rm(dir, { recursive: true, force: true });
  return { p99: percentile(latencies, 0.99), p50: percentile(latencies, 0.5), batchRunning };
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
  `${SUBMITS} interactive submits, one every ${TASK_MS / 2} ms, tasks of ${TASK_MS} ms, ${SLOTS} slots; ` +
    `with and without ${LINES} batch lines queued`,
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
  const ratios: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const alone = () => run(database, accountId, sample, `alone-${round}`, 0);
    const withBatch = () => run(database, accountId, sample, `batch-${round}`, LINES);
    const [a, b] = round % 2 === 0 ? [await alone(), await withBatch()] : [undefined, await withBatch()];
    const without = a ?? (await alone());
    ratios.push(b.p99 / Math.max(1, without.p99));
    console.log(
      `  ${name} round ${round + 1}: p99 ${without.p99} ms alone, ${b.p99} ms with the batch ` +
        `(p50 ${without.p50} / ${b.p50} ms; slots busy at the end ${b.batchRunning}), ${load()}`,
    );
  }
  console.log(`${name}: interactive claim-to-start p99 with ÷ without a batch queued: ${median(ratios).toFixed(2)}`);
  await database.close();
  await created.drop();
}
await rm(sampleDir, { recursive: true, force: true });
