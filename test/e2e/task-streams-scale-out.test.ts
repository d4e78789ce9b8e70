import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VidgenClient, type FamilyBTask, type TaskStreamEvent } from '../../packages/client/src/index.ts';
import { createPostgresDatabase, type TestDatabase } from '../../packages/server/test/support/databases.ts';
import { openSqlDatabase, type SqlDatabase } from '../../packages/server/src/store/sql/database.ts';
import { SqlTaskStore } from '../../packages/server/src/store/sql/sql-task-store.ts';
import { spawnServer, runServerCommand, type ServerProcess } from './support/process.ts';
import { api } from './support/http.ts';
import {
  startFrontDoor,
  startSteeredUpstream,
  STEERED_MODELS,
  until,
  type SteeredUpstream,
} from './support/steered-upstream.ts';

// Scale-out on PostgreSQL: API processes and a worker process sharing the database, behind a
// front door as a load balancer would be. The worker's changes reach the API process's streams
// through the database's wake-ups; an API process killed mid-stream costs its watchers nothing:
// they reconnect with Last-Event-ID to another one and continue with no gap and no duplicate.
describe('task streams across processes (PostgreSQL)', () => {
  let database: TestDatabase | string;
  let upstream: SteeredUpstream;
  let dataDir: string;
  let db: SqlDatabase | undefined;
  const processes: ServerProcess[] = [];
  let env: Record<string, string>;
  let key: string;

  before(async () => {
    database = await createPostgresDatabase();
    upstream = await startSteeredUpstream();
    dataDir = await mkdtemp(join(tmpdir(), 'vidgen-streams-scale-'));
    if (typeof database === 'string') return;
    env = {
      ...upstream.env,
      VIDGEN_DATA_DIR: dataDir,
      VIDGEN_DATABASE_URL: database.location,
      VIDGEN_SIGNING_SECRET: 'streams-scale-out',
      VIDGEN_STREAM_HEARTBEAT_SECONDS: '0.5',
    };
    key = (await runServerCommand(['keys', 'create', '--account', 'watchers'], env)).stdout.trim();
    db = await openSqlDatabase(database.location);
  });
  after(async () => {
    for (const p of processes) await p.stop('SIGKILL');
    await db?.close();
    await upstream?.close();
    if (typeof database !== 'string') await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const spawn = async (role: 'api' | 'worker') => {
    const server = await spawnServer(env, ['--role', role]);
    processes.push(server);
    return server;
  };
  const taskNow = async (id: string) => (await new SqlTaskStore(db!.db, db!.dialect).get(id))!;

  it('a watcher of a killed API process continues on another with no gap and no duplicate', async (t) => {
    if (typeof database === 'string') return t.skip(database);
    await spawn('worker');
    const first = await spawn('api');
    const door = await startFrontDoor(Number(new URL(first.url).port));
    try {
      const client = new VidgenClient({
        baseURL: door.url,
        apiKey: key,
        backoff: { initialDelayMs: 50, maxDelayMs: 200 },
      });
      const prompt = 'a render that outlives its API process';
      const { task_id: id } = await client.videoGenerations.create({ model: STEERED_MODELS.B, prompt });
      const events: Array<TaskStreamEvent<FamilyBTask>> = [];
      const watched = (async () => {
        for await (const event of client.videoGenerations.stream(id, { maxReconnects: 10_000 })) events.push(event);
      })();
      const job = await upstream.jobFor(prompt);
      const progressed = (above: number) => until(() => (events.at(-1)?.task.progress ?? 0) > above);
      await progressed(0);
      job.steer.progress = 20;
      await progressed(events.at(-1)!.task.progress);
      const beforeKill = events.at(-1)!;

      await first.stop('SIGKILL');
      // A step while no API process runs: the worker writes it, nobody can watch it.
      job.steer.progress = 40;
      await until(async () => (await taskNow(id)).progress > beforeKill.task.progress);
      const missed = await taskNow(id);
      assert.equal(events.at(-1), beforeKill, 'nothing arrives while no API process runs');

      const second = await spawn('api');
      door.retarget(Number(new URL(second.url).port));
      await until(() => events.at(-1) !== beforeKill);
      const resumed = events.at(-1)!;
      assert.equal(Number(resumed.id), Number(beforeKill.id) + 1, 'the next state, with no gap');
      assert.equal(Number(resumed.id), missed.revision);
      assert.equal(resumed.task.progress, missed.progress);

      job.steer.progress = 60;
      await progressed(resumed.task.progress);
      job.steer.done = true;
      await watched;
      const last = events.at(-1)!;
      assert.equal(last.task.status, 'SUCCESS');
      assert.deepEqual(last.task, (await api(second.url, key).get(`/v1/video/generations/${id}`)).body);
      const ids = events.map((e) => Number(e.id));
      assert.equal(new Set(ids).size, ids.length, `no event twice: ${ids}`);
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => a - b),
      );
      assert.ok(
        ids.includes(Number(beforeKill.id)) && ids.includes(Number(resumed.id)),
        'both sides of the kill were seen',
      );
    } finally {
      await door.close();
    }
  });

  it('SIGTERM ends the open streams at once, also after clients left theirs, while their tasks go on', async (t) => {
    if (typeof database === 'string') return t.skip(database);
    const server = await spawn('api');
    const client = new VidgenClient({ baseURL: server.url, apiKey: key, maxRetries: 0 });
    const prompt = 'a render watched through a shutdown';
    const { task_id: id } = await client.videoGenerations.create({ model: STEERED_MODELS.B, prompt });
    await upstream.jobFor(prompt);
    // One client leaves its stream (the fetch it aborts leaves an unused connection behind), one stays.
    const left = client.videoGenerations.stream(id);
    await left.next();
    await left.return(undefined);
    const stays = client.videoGenerations.stream(id, { maxReconnects: 0 });
    await stays.next();
    const exited = new Promise((resolve) => server.child.once('exit', resolve));
    // Bounded, as the point is the bound: a drain waiting on the streams would last until the task
    // ends (never, here), one waiting on the unused connection a minute (Node's headers time-out).
    const bound = setTimeout(() => server.child.kill('SIGKILL'), 20_000);
    server.child.kill('SIGTERM');
    await exited;
    clearTimeout(bound);
    assert.deepEqual([server.child.exitCode, server.child.signalCode], [0, null], 'it exited by itself, in time');
    await assert.rejects(
      (async () => {
        for (let next = await stays.next(); !next.done; next = await stays.next());
      })(),
      'the stream ended with the process, before its task',
    );
    assert.equal((await taskNow(id)).status, 'running', 'the task goes on without its watcher');
  });
});
