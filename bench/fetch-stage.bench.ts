/**
 * What a never-answering input URL costs the other tasks of a lane. Each round queues a burst of
 * plain tasks twice, back to back (alternating which goes first): alone, and behind three tasks
 * whose image URL is a server that accepts the connection and never answers (it holds until the
 * fetch timeout, 15 s by default). The backend "renders" for a fixed time; the lane has 2 render
 * slots and the default fetch stage (engine/fetch-stage.ts). Printed per case: each plain task's
 * claim-to-start (its claim, task.startedAt, to the backend's start) and queued-to-start (its
 * submit to the backend's start, which also counts any wait for a slot), medians over the round.
 * Aim: with the stuck inputs, the plain tasks' claim-to-start and queued-to-start stay within 1 s
 * of the time without them (before the fetch stage, three stuck inputs held both slots for 15 s).
 *
 *   node --import tsx bench/fetch-stage.bench.ts [--rounds 2] [--tasks 6] [--render-ms 300]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import pino from 'pino';
import { openSqlDatabase } from '../packages/server/src/store/sql/database.ts';
import { SqlTaskStore } from '../packages/server/src/store/sql/sql-task-store.ts';
import { SqlAccountStore } from '../packages/server/src/store/sql/sql-account-store.ts';
import { SqlFileStore } from '../packages/server/src/store/sql/sql-file-store.ts';
import { LocalDiskBlobStore } from '../packages/server/src/blobs/local-disk-blob-store.ts';
import { MediaInputs } from '../packages/server/src/engine/inputs/media-inputs.ts';
import { VideoInputs } from '../packages/server/src/engine/inputs/video-inputs.ts';
import { TaskEvents } from '../packages/server/src/domain/task-events.ts';
import { createWorker } from '../packages/server/src/engine/worker.ts';
import { noMetrics } from '../packages/server/src/engine/engine-metrics.ts';
import { uuidv7 } from '../packages/server/src/domain/ids.ts';
import { createSafeFetch } from '../packages/server/src/security/create-safe-fetch.ts';
import { resolveFfmpegBinaries } from '../packages/server/src/media/ffmpeg-binaries.ts';
import type { Generator } from '../packages/server/src/generators/generator.ts';
import { createSqliteDatabase } from '../packages/server/test/support/databases.ts';
import { load, median, numberArg } from './support/paired.ts';

const ROUNDS = numberArg('rounds', 2);
const TASKS = numberArg('tasks', 6);
const RENDER_MS = numberArg('render-ms', 300);
const STUCK = 3;
const SLOTS = 2;
const FETCH_TIMEOUT_MS = 15_000;
const params = {
  prompt: 'p',
  images: [] as Array<{ kind: 'url'; url: string }>,
  duration: 1,
  aspectRatio: '16:9',
  width: 64,
  height: 36,
  fps: 24,
};
const unused = async (): Promise<never> => {
  throw new Error('no video inputs here');
};

// The input server that never answers: it takes the connection and says nothing.
const sockets = new Set<Socket>();
const silent = createServer((socket) => {
  sockets.add(socket);
  socket.on('close', () => sockets.delete(socket));
});
await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
const silentUrl = `http://127.0.0.1:${(silent.address() as { port: number }).port}/frame.png`;

const dir = await mkdtemp(join(tmpdir(), 'vidgen-bench-fetch-'));
const sample = join(dir, 'sample.mp4');
execFileSync(resolveFfmpegBinaries({}).ffmpeg, [
  ...['-loglevel', 'error', '-f', 'lavfi', '-i', 'color=c=black:s=64x36:r=24:d=1'],
  ...['-pix_fmt', 'yuv420p', '-c:v', 'libx264', '-y', sample],
]);
/** One case: `stuck` tasks with a silent image URL queued first, then the plain tasks; their times. */
async function measure(stuck: number): Promise<{ claimToStart: number; queuedToStart: number }> {
  // A database of its own: no task of another case is left in its queue.
  const created = await createSqliteDatabase();
  if (typeof created === 'string') throw new Error(created);
  const database = await openSqlDatabase(created.location);
  const accountId = (await new SqlAccountStore(database.db).ensureAccount('bench', null, Date.now())).id;
  const tasks = new SqlTaskStore(database.db, database.dialect);
  const blobs = new LocalDiskBlobStore(join(dir, 'blobs'));
  const events = new TaskEvents();
  const startedAt = new Map<string, number>();
  const backend: Generator = {
    kinds: ['generate'],
    generate: async (job) => {
      startedAt.set(job.taskId, Date.now());
      await new Promise((resolve) => setTimeout(resolve, RENDER_MS));
      return { path: sample };
    },
  };
  const fetch = createSafeFetch({
    ...{ allowPrivate: true, timeoutMs: FETCH_TIMEOUT_MS, maxBytes: 1 << 20, maxRedirects: 0, what: 'image' },
  });
  const worker = createWorker({
    ...{ tasks, blobs, events, generators: { bench: backend }, metrics: noMetrics, logger: pino({ level: 'silent' }) },
    clock: Date.now,
    inputs: new MediaInputs({
      ...{ files: new SqlFileStore(database.db), blobs, fetch: { image: fetch, audio: unused }, checkAudio: unused },
    }),
    videos: new VideoInputs({ files: new SqlFileStore(database.db), blobs, tasks, fetch: unused, probe: unused }),
    ...{ owner: `bench-${stuck}`, lanes: { bench: { slots: SLOTS, deadlineMs: 60_000 } }, maxRunningPerAccount: 0 },
    ...{ leaseMs: 30_000, heartbeatMs: 10_000, pollMs: 50, maxAttempts: 1, retentionMs: 3_600_000 },
    ...{ workRoot: join(dir, 'work'), normalizeImage: async (b: Buffer) => b, verifyVideo: async () => undefined },
  });
  const insert = async (images: typeof params.images) => {
    const task = await tasks.insert({
      ...{ id: uuidv7(), accountId, family: 'B', kind: 'generate', model: 'm', backend: 'bench' },
      ...{ params: { ...params, images }, createdAt: Date.now() },
    });
    events.taskQueued('bench');
    return task.id;
  };
  worker.start();
  for (let i = 0; i < stuck; i++) await insert([{ kind: 'url', url: silentUrl }]);
  // The stuck ones are fetching before the plain ones arrive: as many as there are slots at least
  // (a worker without a fetch stage fetches in its slots, so no more than that can be).
  while (sockets.size < Math.min(stuck, SLOTS)) await new Promise((resolve) => setTimeout(resolve, 5));
  const plain: string[] = [];
  for (let i = 0; i < TASKS; i++) plain.push(await insert([]));
  while (plain.some((id) => !startedAt.has(id))) await new Promise((resolve) => setTimeout(resolve, 5));
  const claimToStart: number[] = [];
  const queuedToStart: number[] = [];
  for (const id of plain) {
    const task = (await tasks.get(id))!;
    claimToStart.push(startedAt.get(id)! - task.startedAt!);
    queuedToStart.push(startedAt.get(id)! - task.createdAt);
  }
  await worker.stop(0);
  for (const socket of sockets) socket.destroy();
  await database.close();
  await created.drop();
  return { claimToStart: median(claimToStart), queuedToStart: median(queuedToStart) };
}

console.log(
  `fetch stage: ${TASKS} plain tasks (render ${RENDER_MS} ms), 2 render slots, alone and behind ${STUCK} ` +
    `never-answering image URLs (fetch timeout ${FETCH_TIMEOUT_MS / 1000} s), ${ROUNDS} rounds, ${load()}`,
);
const deltas = { claim: [] as number[], queued: [] as number[] };
try {
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? [0, STUCK] : [STUCK, 0];
    const got: Record<number, { claimToStart: number; queuedToStart: number }> = {};
    for (const stuck of order) got[stuck] = await measure(stuck);
    const [alone, behind] = [got[0], got[STUCK]];
    deltas.claim.push(behind.claimToStart - alone.claimToStart);
    deltas.queued.push(behind.queuedToStart - alone.queuedToStart);
    console.log(
      `  round ${r + 1}: claim-to-start ${alone.claimToStart} ms alone, ${behind.claimToStart} ms behind; ` +
        `queued-to-start ${alone.queuedToStart} ms alone, ${behind.queuedToStart} ms behind`,
    );
  }
  console.log(
    `  with - without, median over rounds: claim-to-start ${median(deltas.claim)} ms, ` +
      `queued-to-start ${median(deltas.queued)} ms (aim: both within 1000 ms)`,
  );
} finally {
  silent.close();
  await rm(dir, { recursive: true, force: true });
}
process.exit(0);
