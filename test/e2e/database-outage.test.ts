import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { spawnServer, runServerCommand, type ServerProcess } from './support/process.ts';
import { api, type Answer } from './support/http.ts';
import { downloadAndProbe } from './support/video.ts';
import { createPostgresDatabase, type TestDatabase } from '../../packages/server/test/support/databases.ts';

const ADMIN_URL = process.env.VIDGEN_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const TASKS = 6;
const KILL_ROUNDS = 8;

// Invariant 9 on PostgreSQL, with real processes: every connection of the service is killed
// again and again (pool, LISTEN client) while clients submit and poll, then the database
// refuses connections for a while (an outage). No process exits, no request gets a 500,
// every task ends done with a valid MP4 and none is created twice.
describe('database connection loss on PostgreSQL', () => {
  let database: TestDatabase | string;
  let dataDir: string;
  let processes: ServerProcess[] = [];
  let admin: pg.Client;
  let key: string;
  let dbName: string;
  let env: Record<string, string>;

  before(async () => {
    database = await createPostgresDatabase();
    if (typeof database === 'string') return;
    dbName = new URL(database.location).pathname.slice(1);
    dataDir = await mkdtemp(join(tmpdir(), 'vidgen-dbloss-'));
    env = {
      VIDGEN_DATA_DIR: dataDir,
      VIDGEN_DATABASE_URL: database.location,
      VIDGEN_SIGNING_SECRET: 'dbloss',
      VIDGEN_POLL_MS: '200',
      VIDGEN_LEASE_SECONDS: '6',
      VIDGEN_HEARTBEAT_SECONDS: '1',
      VIDGEN_WORKER_CONCURRENCY: '2',
    };
    key = (await runServerCommand(['keys', 'create', '--account', 'dbloss'], env)).stdout.trim();
    processes = [await spawnServer(env, ['--role', 'api']), await spawnServer(env, ['--role', 'worker'])];
    admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
  });
  after(async () => {
    if (admin) {
      await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`).catch(() => undefined);
      await admin.end();
    }
    for (const p of processes) await p.stop();
    if (typeof database !== 'string') await database.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const killAll = async () =>
    (
      await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [dbName],
      )
    ).rowCount ?? 0;

  /** A request that may meet the outage: 503 with Retry-After and the envelope is fine, anything 5xx else is not. */
  const checked = async (answer: Promise<Answer>, what: string, problems: string[]): Promise<Answer | undefined> => {
    const a = await answer;
    if (a.status === 503) {
      if (!a.headers.get('retry-after')) problems.push(`${what}: 503 without Retry-After`);
      if (a.body?.error?.code !== 'service_unavailable')
        problems.push(`${what}: 503 not in the envelope: ${JSON.stringify(a.body)}`);
      if (!a.headers.get('x-request-id')) problems.push(`${what}: 503 without x-request-id`);
      return undefined;
    }
    if (a.status >= 500) problems.push(`${what}: ${a.status} ${JSON.stringify(a.body)}`);
    return a;
  };

  it('survives every connection being killed, repeatedly, while clients submit and poll', async (t) => {
    if (typeof database === 'string') return t.skip(database);
    const client = api(processes[0].url, key);
    const problems: string[] = [];
    const ids = new Map<string, string>();
    let killed = 0;
    let rounds = 0;
    let stop = false;
    const killer = (async () => {
      while (!stop && rounds < KILL_ROUNDS * 4) {
        killed += await killAll();
        rounds++;
        await new Promise((r) => setTimeout(r, 400));
      }
    })();
    // Submits with an Idempotency-Key, retried as a client would: never two tasks for one key.
    for (let i = 0; i < TASKS; i++) {
      const a = await submitUntilAccepted(
        client,
        { model: 'video-v1-5s', prompt: `outage ${i}` },
        `outage-${i}`,
        problems,
      );
      ids.set(`outage-${i}`, a.body.task_id);
    }
    const finished = new Map<string, string>();
    // No clock: every task reaches an end (a killed connection costs a retry or a lease, not the task).
    while (finished.size < ids.size) {
      for (const id of ids.values()) {
        if (finished.has(id)) continue;
        const a = await checked(client.get(`/v1/video/generations/${id}`), `poll ${id}`, problems);
        if (a && ['SUCCESS', 'FAILURE'].includes(a.body.status)) finished.set(id, a.body.status);
      }
      await new Promise((r) => setTimeout(r, 300));
    }
    stop = true;
    await killer;
    t.diagnostic(`${rounds} kill rounds, ${killed} backends terminated`);
    assert.ok(rounds >= KILL_ROUNDS, `at least ${KILL_ROUNDS} rounds (${rounds})`);
    assert.ok(killed > rounds, 'the rounds killed the service connections');
    assert.deepEqual(problems, []);
    assert.deepEqual([...finished.values()], Array(TASKS).fill('SUCCESS'));
    for (const p of processes) assert.equal(p.child.exitCode, null, 'no process exited');
    for (const id of ids.values()) {
      const { probe } = await downloadAndProbe(`${processes[0].url}/v1/videos/${id}/content`, {
        authorization: `Bearer ${key}`,
      });
      assert.equal(probe.codec, 'h264');
    }
    const own = new pg.Client({ connectionString: database.location });
    await own.connect();
    try {
      assert.equal((await own.query('SELECT count(*)::int AS n FROM tasks')).rows[0].n, TASKS, 'no task created twice');
    } finally {
      await own.end();
    }
  });

  it('during an outage answers 503 + Retry-After, is not ready, and resumes by itself', async (t) => {
    if (typeof database === 'string') return t.skip(database);
    const [apiProcess] = processes;
    const client = api(apiProcess.url, key);
    const problems: string[] = [];
    await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS false`);
    try {
      await killAll();
      // Past the key cache, so authentication must ask the database too.
      await new Promise((r) => setTimeout(r, 2500));
      assert.equal((await fetch(`${apiProcess.url}/readyz`)).status, 503, 'the API is not ready');
      assert.equal((await fetch(`${processes[1].url}/readyz`)).status, 503, 'the worker is not ready');
      const submit = await checked(
        client.post(
          '/v1/video/generations',
          { model: 'video-v1-5s', prompt: 'in the outage' },
          { 'idempotency-key': 'in-outage' },
        ),
        'submit',
        problems,
      );
      assert.equal(submit, undefined, 'the submit was refused with 503');
      const poll = await checked(client.get('/v1/videos'), 'list', problems);
      assert.equal(poll, undefined, 'the list was refused with 503');
      assert.deepEqual(problems, []);
    } finally {
      await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`);
    }
    for (const p of processes) {
      while ((await fetch(`${p.url}/readyz`)).status !== 200) await new Promise((r) => setTimeout(r, 200));
    }
    // The same key now creates its task, once, and a worker picks it up by itself. "Ready" is one
    // probe's view: a pooled connection the outage killed may still answer one request with 503 +
    // Retry-After, which a client retries.
    const created = await submitUntilAccepted(
      client,
      { model: 'video-v1-5s', prompt: 'in the outage' },
      'in-outage',
      problems,
    );
    assert.deepEqual(problems, []);
    let status = '';
    while (status !== 'SUCCESS' && status !== 'FAILURE') {
      status = (await client.get(`/v1/video/generations/${created.body.task_id}`)).body.status;
      await new Promise((r) => setTimeout(r, 300));
    }
    assert.equal(status, 'SUCCESS');
    for (const p of processes) assert.equal(p.child.exitCode, null, 'no process exited');
  });

  it('a process started during an outage waits for the database instead of exiting', async (t) => {
    if (typeof database === 'string') return t.skip(database);
    await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS false`);
    let allowed = false;
    const allow = setTimeout(async () => {
      allowed = true;
      await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`);
    }, 2000);
    try {
      const late = await spawnServer(env, ['--role', 'worker']);
      processes.push(late);
      assert.ok(allowed, 'it started only once the database accepted connections');
      assert.equal((await fetch(`${late.url}/readyz`)).status, 200);
    } finally {
      clearTimeout(allow);
      await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`);
    }
  });
});

/**
 * Submits until accepted, as a client does: a 503 (checked: Retry-After and the envelope) or a 409
 * `idempotency_in_flight` (the same key's earlier attempt is still settling after its connection
 * was killed) is retried after its Retry-After with the same key; any other answer fails.
 */
async function submitUntilAccepted(
  client: ReturnType<typeof api>,
  body: Record<string, unknown>,
  key: string,
  problems: string[],
): Promise<Answer> {
  for (;;) {
    const a = await client.post('/v1/video/generations', body, { 'idempotency-key': key });
    if (a.status === 200) return a;
    const retryable = a.status === 503 || (a.status === 409 && a.body?.error?.code === 'idempotency_in_flight');
    assert.ok(retryable, `submit ${key}: ${a.status} ${JSON.stringify(a.body)}`);
    if (a.status === 503) {
      if (!a.headers.get('retry-after')) problems.push(`submit ${key}: 503 without Retry-After`);
      if (a.body?.error?.code !== 'service_unavailable')
        problems.push(`submit ${key}: 503 not in the envelope: ${JSON.stringify(a.body)}`);
    }
    const after = Number(a.headers.get('retry-after') ?? '1');
    await new Promise((r) => setTimeout(r, Math.min(Number.isFinite(after) ? after : 1, 2) * 1000));
  }
}
