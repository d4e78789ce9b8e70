import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { openSqlDatabase, type SqlDatabase } from '../../src/store/sql/database.ts';
import { SqlTaskStore } from '../../src/store/sql/sql-task-store.ts';
import { SqlAccountStore } from '../../src/store/sql/sql-account-store.ts';
import { SqlFileStore } from '../../src/store/sql/sql-file-store.ts';
import { LocalDiskBlobStore } from '../../src/blobs/local-disk-blob-store.ts';
import { MediaInputs } from '../../src/engine/inputs/media-inputs.ts';
import { VideoInputs } from '../../src/engine/inputs/video-inputs.ts';
import { TaskEvents } from '../../src/domain/task-events.ts';
import { createWorker } from '../../src/engine/worker.ts';
import { noMetrics } from '../../src/engine/engine-metrics.ts';
import { uuidv7 } from '../../src/domain/ids.ts';
import { resolveFfmpegBinaries } from '../../src/media/ffmpeg-binaries.ts';
import type { Generator } from '../../src/generators/generator.ts';
import type { ClaimRequest } from '../../src/store/task-store.ts';
import { createSqliteDatabase, type TestDatabase } from '../support/databases.ts';

const params = { prompt: 'p', images: [], duration: 1, aspectRatio: '16:9', width: 64, height: 36, fps: 24 };
const unused = async (): Promise<never> => {
  throw new Error('these tasks have no inputs');
};

// The worker polls once an hour here: a task it finds sooner was found through its wake-up.
describe('worker wake-ups', () => {
  let dir: string;
  let created: TestDatabase;
  let database: SqlDatabase;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vidgen-wakeups-'));
    created = await createSqliteDatabase();
    database = await openSqlDatabase(created.location);
  });
  after(async () => {
    await database?.close();
    await created?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('a task queued while a claim is under way is claimed at once, not at the next poll', async () => {
    const sample = join(dir, 'sample.mp4');
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
    const store = new SqlTaskStore(database.db, database.dialect);
    const accountId = (await new SqlAccountStore(database.db).ensureAccount('wakeups', null, Date.now())).id;
    const events = new TaskEvents();
    let queuedId: string | undefined;
    // The first claim finds the queue empty, and a submit lands (insert, then its wake-up) before
    // the claim's answer reaches the slot: the race between a claim and the slot going idle.
    const tasks = Object.create(store) as SqlTaskStore;
    tasks.claim = async (request: ClaimRequest) => {
      const claimed = await store.claim(request);
      if (!claimed && !queuedId) {
        queuedId = (
          await store.insert({
            id: uuidv7(),
            accountId,
            family: 'B',
            kind: 'generate',
            model: 'm',
            backend: 'noop',
            params,
            createdAt: Date.now(),
          })
        ).id;
        events.taskQueued('noop');
      }
      return claimed;
    };
    const noop: Generator = { kinds: ['generate'], generate: async () => ({ path: sample }) };
    const blobs = new LocalDiskBlobStore(join(dir, 'blobs'));
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
      owner: 'wakeups',
      lanes: { noop: { slots: 1, deadlineMs: 60_000 } },
      maxRunningPerAccount: 0,
      leaseMs: 30_000,
      heartbeatMs: 10_000,
      pollMs: 3_600_000,
      maxAttempts: 1,
      retentionMs: 3_600_000,
      workRoot: join(dir, 'work'),
      normalizeImage: async (b) => b,
      verifyVideo: async () => undefined,
    });
    worker.start();
    try {
      // Bounded well below the poll interval: without the wake-up the task would wait an hour.
      const deadline = Date.now() + 60_000;
      let status: string | undefined;
      while (Date.now() < deadline) {
        status = queuedId ? (await store.get(queuedId))?.status : undefined;
        if (status === 'succeeded') break;
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal(status, 'succeeded', 'the task queued during the claim was run without waiting for the next poll');
    } finally {
      await worker.stop();
    }
  });
});
