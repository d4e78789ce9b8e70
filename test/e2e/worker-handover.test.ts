import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer, runServerCommand, type ServerProcess } from './support/process.ts';
import { api, pollUntil, type Api } from './support/http.ts';
import { downloadAndProbe } from './support/video.ts';
import { openSqlDatabase } from '../../packages/server/src/store/sql/database.ts';
import { SqlTaskStore } from '../../packages/server/src/store/sql/sql-task-store.ts';
import { taskBlobFiles } from './support/blob-files.ts';

// One API process and separate worker processes sharing a data dir: a worker killed or
// stopped mid-render loses nothing, and exactly one verified file is served.
describe('worker processes hand tasks over', () => {
  let dataDir: string;
  let apiServer: ServerProcess;
  let client: Api;
  let key: string;
  const workers: ServerProcess[] = [];
  const env = () => ({
    VIDGEN_DATA_DIR: dataDir,
    VIDGEN_LEASE_SECONDS: '2',
    VIDGEN_HEARTBEAT_SECONDS: '0.5',
    VIDGEN_POLL_MS: '100',
    VIDGEN_WORKER_CONCURRENCY: '1',
    VIDGEN_SHUTDOWN_GRACE_SECONDS: '0',
  });
  const worker = async () => {
    const w = await spawnServer(env(), ['--role', 'worker']);
    workers.push(w);
    return w;
  };
  const attemptsOf = async (id: string) => {
    const database = await openSqlDatabase(join(dataDir, 'vidgen.db'));
    try {
      return await new SqlTaskStore(database.db, database.dialect).attempts(id);
    } finally {
      await database.close();
    }
  };
  const submitLong = async () =>
    (
      await client.post('/v1/video/generations', {
        model: 'video-v1-15s',
        prompt: 'a long slow dolly over a city at night',
        ratio: '9:16',
      })
    ).body.task_id as string;
  const finishes = async (id: string) => {
    const done = await pollUntil(
      () => client.get(`/v1/video/generations/${id}`),
      (a) => ['SUCCESS', 'FAILURE'].includes(a.body.status),
    );
    assert.equal(done.body.status, 'SUCCESS', JSON.stringify(done.body));
    const files = (await taskBlobFiles(dataDir, id)).files.filter((f) => f.endsWith('.mp4'));
    assert.equal(files.length, 1, `exactly one stored video, found ${files}`);
    const { probe } = await downloadAndProbe(`${apiServer.url}${done.body.result_url}`, {
      authorization: `Bearer ${key}`,
    });
    assert.deepEqual([probe.codec, probe.width, probe.height], ['h264', 720, 1280]);
    assert.ok(Math.abs(probe.durationSeconds - 15) < 0.1);
  };

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'vidgen-handover-'));
    key = (
      await runServerCommand(['keys', 'create', '--account', 'handover'], { VIDGEN_DATA_DIR: dataDir })
    ).stdout.trim();
    apiServer = await spawnServer(env(), ['--role', 'api']);
    client = api(apiServer.url, key);
  });
  after(async () => {
    for (const w of workers) await w.stop('SIGKILL');
    await apiServer.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('kill -9 mid-render: another worker finishes the task after the lease runs out', async () => {
    const first = await worker();
    const id = await submitLong();
    await pollUntil(
      () => client.get(`/v1/video/generations/${id}`),
      (a) => a.body.progress > 0,
    );
    await first.stop('SIGKILL');
    await worker();
    await finishes(id);
    const attempts = await attemptsOf(id);
    assert.deepEqual(
      attempts.map((a) => a.outcome),
      ['lease_expired', 'succeeded'],
    );
    assert.notEqual(attempts[0].worker, attempts[1].worker);
  });

  it('SIGTERM mid-render: the task is handed back at once, without using up an attempt', async () => {
    const [running] = workers.slice(-1);
    const id = await submitLong();
    await pollUntil(
      () => client.get(`/v1/video/generations/${id}`),
      (a) => a.body.progress > 0,
    );
    const standby = await worker();
    await running.stop('SIGTERM');
    await finishes(id);
    const attempts = await attemptsOf(id);
    assert.deepEqual(
      attempts.map((a) => a.outcome),
      ['released', 'succeeded'],
    );
    assert.equal(attempts[1].worker.split(':')[1], String(standby.child.pid));
  });
});
