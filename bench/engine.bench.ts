/**
 * Task-engine overhead with a no-op backend: throughput of draining a backlog and
 * claim-to-start latency of tasks submitted one by one, on SQLite and (when reachable)
 * PostgreSQL. Baseline, same run and database: a bare queue (insert; claim with one
 * UPDATE … RETURNING; mark done), the least any SQL queue must do. The engine's store carries the
 * transition effects `npm start` composes (ledger, hourly usage rollup, webhook outbox), for an unmetered account with
 * no webhook endpoint: what they cost when they have nothing to do.
 * Aims: ratio ≥ 0.3 and ≥ 1,500/s on SQLite; ≥ 0.5 and ≥ 500/s on PostgreSQL.
 * Each round drains a backlog through both, back to back (alternating which goes first); the
 * ratio printed is the median of the rounds' ratios, with the load average beside it.
 *
 *   node --import tsx bench/engine.bench.ts [--tasks 500] [--slots 4] [--rounds 3] [--full: 2000 tasks, 5 rounds]
 *     [--db sqlite|postgres: only that database, e.g. under --cpu-prof]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import pino from 'pino';
import { openSqlDatabase, type SqlDatabase } from '../packages/server/src/store/sql/database.ts';
import { SqlTaskStore } from '../packages/server/src/store/sql/sql-task-store.ts';
import { ledgerEffects } from '../packages/server/src/billing/ledger-effects.ts';
import { webhookOutbox } from '../packages/server/src/webhooks/webhook-outbox.ts';
import { usageRollupEffects } from '../packages/server/src/billing/usage-rollup.ts';
import type { ModelEntry } from '../packages/server/src/catalog/model-catalog.ts';
import { FIRST_FRAME_ONLY } from '../packages/server/src/domain/task-inputs.ts';
import { SqlAccountStore } from '../packages/server/src/store/sql/sql-account-store.ts';
import { SqlFileStore } from '../packages/server/src/store/sql/sql-file-store.ts';
import { LocalDiskBlobStore } from '../packages/server/src/blobs/local-disk-blob-store.ts';
import { MediaInputs } from '../packages/server/src/engine/inputs/media-inputs.ts';
import { VideoInputs } from '../packages/server/src/engine/inputs/video-inputs.ts';
import { TaskEvents } from '../packages/server/src/domain/task-events.ts';
import { createWorker } from '../packages/server/src/engine/worker.ts';
import { noMetrics } from '../packages/server/src/engine/engine-metrics.ts';
import { uuidv7 } from '../packages/server/src/domain/ids.ts';
import { resolveFfmpegBinaries } from '../packages/server/src/media/ffmpeg-binaries.ts';
import type { Generator } from '../packages/server/src/generators/generator.ts';
import { FULL, describeRatios, load, median, numberArg, paired } from './support/paired.ts';
import { createPostgresDatabase, createSqliteDatabase } from '../packages/server/test/support/databases.ts';

const N = numberArg('tasks', FULL ? 2000 : 500);
const SLOTS = numberArg('slots', 4);
const ROUNDS = numberArg('rounds', FULL ? 5 : 3);
const LATENCY_SAMPLES = FULL ? 200 : 50;
const params = { prompt: 'p', images: [], duration: 1, aspectRatio: '16:9', width: 64, height: 36, fps: 24 };
const model: ModelEntry = {
  id: 'm',
  aliases: [],
  family: 'B',
  backend: 'noop',
  shortSide: 36,
  resolution: '36p',
  resolutions: ['36p'],
  durations: [1],
  aspectRatios: ['16:9'],
  requiresImage: false,
  inputs: FIRST_FRAME_ONLY,
  capabilities: { generate: true, edit: false, extend: false },
  fps: 24,
  ownedBy: 'bench',
  created: 0,
  price: { usdTicksPerSecond: 1000, byResolution: {}, soundUsdTicksPerSecond: 0 },
  sound: { mode: 'none', default: false },
};
const effects = [
  ledgerEffects({ find: (id) => (id === 'm' ? model : undefined) }, Date.now),
  usageRollupEffects(Date.now),
  webhookOutbox({ maxAttempts: 5, clock: Date.now }),
];

const unused = async (): Promise<never> => {
  throw new Error('no-op tasks have no inputs');
};
/**
 * CPU time (user + system) of this process per task while draining, beside the wall-clock rates:
 * on a shared, loaded machine it varies far less than they do. It includes the bench's own
 * polling for the end of the drain.
 */
const cpuPerTask = { bare: [] as number[], engine: [] as number[] };
const cpuMicros = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return used.user + used.system;
};
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];

async function bareQueue(database: SqlDatabase, accountId: string): Promise<number> {
  const { db } = database;
  for (let i = 0; i < N; i++) {
    await db
      .insertInto('tasks')
      .values({
        id: uuidv7(),
        account_id: accountId,
        family: 'B',
        kind: 'generate',
        model: 'm',
        backend: 'bare',
        status: 'queued',
        progress: 0,
        params: JSON.stringify(params),
        error_code: null,
        error_message: null,
        result_key: null,
        result_bytes: null,
        result_etag: null,
        attempts: 0,
        lease_owner: null,
        lease_token: 0,
        lease_expires_at: null,
        available_at: 0,
        created_at: Date.now(),
        started_at: null,
        finished_at: null,
        expires_at: null,
        idempotency_key: null,
        backend_state: null,
      })
      .execute();
  }
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (;;) {
    const pick = db
      .selectFrom('tasks')
      .select('id')
      .where('status', '=', 'queued')
      .where('backend', '=', 'bare')
      .orderBy('available_at')
      .limit(1);
    const row = await db
      .updateTable('tasks')
      .set({ status: 'running' })
      .where('id', '=', database.dialect.lockForTaking(pick))
      .returning('id')
      .executeTakeFirst();
    if (!row) break;
    await db.updateTable('tasks').set({ status: 'succeeded' }).where('id', '=', row.id).execute();
  }
  cpuPerTask.bare.push(cpuMicros(cpu) / N);
  return N / ((performance.now() - started) / 1000);
}

async function engine(database: SqlDatabase, accountId: string, sample: string) {
  const tasks = new SqlTaskStore(database.db, database.dialect, effects);
  const dir = await mkdtemp(join(tmpdir(), 'vidgen-bench-engine-'));
  const blobs = new LocalDiskBlobStore(join(dir, 'blobs'));
  const events = new TaskEvents();
  // A backend with nothing to make hands over a file it already has and never asks for a work
  // directory, so the engine makes none; what is measured is the engine's own work around it.
  const noop: Generator = { kinds: ['generate'], generate: async () => ({ path: sample }) };
  const insert = async () => {
    const task = await tasks.insert({
      id: uuidv7(),
      accountId,
      family: 'B',
      kind: 'generate',
      model: 'm',
      backend: 'noop',
      params,
      createdAt: Date.now(),
    });
    events.taskQueued('noop');
    return task.id;
  };
  const ids: string[] = [];
  for (let i = 0; i < N; i++) ids.push(await insert());
  const worker = createWorker({
    tasks,
    blobs,
    events,
    generators: { noop },
    metrics: noMetrics,
    logger: pino({ level: 'silent' }),
    clock: Date.now,
    inputs: new MediaInputs({
      files: new SqlFileStore(database.db),
      blobs,
      fetch: { image: unused, audio: unused },
      checkAudio: unused,
    }),
    videos: new VideoInputs({ files: new SqlFileStore(database.db), blobs, tasks, fetch: unused, probe: unused }),
    owner: 'bench',
    lanes: { noop: { slots: SLOTS, deadlineMs: 60_000 } },
    maxRunningPerAccount: 0,
    leaseMs: 30_000,
    heartbeatMs: 10_000,
    pollMs: 50,
    maxAttempts: 3,
    retentionMs: 3_600_000,
    workRoot: dir,
    normalizeImage: async (b) => b,
    verifyVideo: async () => undefined,
  });
  const started = performance.now();
  const cpu = process.cpuUsage();
  worker.start();
  while (
    (await tasks.get(ids[ids.length - 1]))?.status !== 'succeeded' ||
    (await tasks.laneStats()).running.length > 0
  ) {
    await new Promise((r) => setTimeout(r, 5));
  }
  const throughput = N / ((performance.now() - started) / 1000);
  cpuPerTask.engine.push(cpuMicros(cpu) / N);
  const latencies: number[] = [];
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    const id = await insert();
    let task;
    while ((task = await tasks.get(id))?.status === 'queued') await new Promise((r) => setTimeout(r, 1));
    latencies.push(task!.startedAt! - task!.createdAt);
    await new Promise((r) => setTimeout(r, 5));
  }
  await worker.stop();
  await rm(dir, { recursive: true, force: true });
  return { throughput, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) };
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
  `${N} no-op tasks, ${SLOTS} slots in one process; latency over ${LATENCY_SAMPLES} tasks submitted one at a time to idle workers`,
);
const onlyDb = process.argv
  .find((a, i) => process.argv[i - 1] === '--db' || a.startsWith('--db='))
  ?.replace('--db=', '');
for (const [name, create] of [
  ['SQLite', createSqliteDatabase],
  ['PostgreSQL', createPostgresDatabase],
] as const) {
  // `--db postgres` as well as `--db postgresql`: the first ran nothing at all, silently.
  if (onlyDb && !name.toLowerCase().startsWith(onlyDb.toLowerCase())) continue;
  const created = await create();
  if (typeof created === 'string') {
    console.log(`${name}: skipped (${created})`);
    continue;
  }
  const database = await openSqlDatabase(created.location);
  const accountId = (await new SqlAccountStore(database.db).ensureAccount('bench', null, Date.now())).id;
  const latencies: Array<{ p50: number; p99: number }> = [];
  const result = await paired(
    ROUNDS,
    () => bareQueue(database, accountId),
    async () => {
      const r = await engine(database, accountId, sample);
      latencies.push(r);
      return r.throughput;
    },
  );
  const p99 = latencies.map((l) => l.p99).sort((a, b) => a - b)[latencies.length >> 1];
  const cpu = `CPU per task: bare ${median(cpuPerTask.bare.splice(0)).toFixed(0)} µs, engine ${median(cpuPerTask.engine.splice(0)).toFixed(0)} µs`;
  console.log(
    `${name.padEnd(10)} bare queue ${result.baseline.toFixed(0)} tasks/s | engine ${result.subject.toFixed(0)} tasks/s | ${describeRatios(result)} | claim-to-start p99 ${p99} ms | ${cpu} | ${load()}`,
  );
  await database.close();
  await created.drop();
}
await rm(sampleDir, { recursive: true, force: true });
