import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer, runServerCommand, type ServerProcess } from './support/process.ts';
import { api, pollUntil, type Api } from './support/http.ts';
import { createPostgresDatabase, type TestDatabase } from '../../packages/server/test/support/databases.ts';
import { openSqlDatabase } from '../../packages/server/src/store/sql/database.ts';
import { SqlTaskStore } from '../../packages/server/src/store/sql/sql-task-store.ts';

// API and worker as separate processes on PostgreSQL. Workers poll only every 30 s here, so
// quick starts and stops prove the LISTEN/NOTIFY wake-ups work across processes.
describe('PostgreSQL mode, separate API and worker processes', () => {
  let database: TestDatabase | string;
  let dataDir: string;
  let processes: ServerProcess[] = [];
  let client: Api;

  before(async () => {
    database = await createPostgresDatabase();
    if (typeof database === 'string') return;
    dataDir = await mkdtemp(join(tmpdir(), 'vidgen-pg-'));
    const env = {
      VIDGEN_DATA_DIR: dataDir,
      VIDGEN_DATABASE_URL: database.location,
      VIDGEN_POLL_MS: '30000',
      VIDGEN_SIGNING_SECRET: 'shared-secret',
    };
    const key = (await runServerCommand(['keys', 'create', '--account', 'pg'], env)).stdout.trim();
    processes = [await spawnServer(env, ['--role', 'api']), await spawnServer(env, ['--role', 'worker'])];
    client = api(processes[0].url, key);
  });
  after(async () => {
    for (const p of processes) await p.stop();
    if (typeof database !== 'string') await database.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('a submit wakes an idle worker in another process at once', async (t) => {
    if (typeof database === 'string') return t.skip(database);
    const started = Date.now();
    const id = (await client.post('/v1/video/generations', { model: 'video-v1-5s', prompt: 'waves' })).body.task_id;
    const done = await pollUntil(
      () => client.get(`/v1/video/generations/${id}`),
      (a) => ['SUCCESS', 'FAILURE'].includes(a.body.status),
      25_000,
    );
    assert.equal(done.body.status, 'SUCCESS');
    assert.ok(Date.now() - started < 25_000, 'well before the 30 s poll');
  });

  it('a cancel in the API process stops the render in the worker process', async (t) => {
    if (typeof database === 'string') return t.skip(database);
    const id = (await client.post('/v1/video/generations', { model: 'video-v1-15s', prompt: 'long clouds' })).body
      .task_id;
    await pollUntil(
      () => client.get(`/v1/video/generations/${id}`),
      (a) => a.body.status === 'IN_PROGRESS',
      25_000,
    );
    assert.equal((await client.post(`/v1/video/generations/${id}/cancel`)).status, 200);
    const db = await openSqlDatabase(database.location);
    try {
      const tasks = new SqlTaskStore(db.db, db.dialect);
      const deadline = Date.now() + 10_000;
      let attempts = await tasks.attempts(id);
      while (attempts[0]?.outcome === null && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        attempts = await tasks.attempts(id);
      }
      assert.equal(attempts[0]?.outcome, 'canceled', 'the worker was told at once, not at its next write');
    } finally {
      await db.close();
    }
  });
});
