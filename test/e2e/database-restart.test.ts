import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { VidgenClient } from '../../packages/client/src/index.ts';
import { spawnServer, runServerCommand, type ServerProcess } from './support/process.ts';
import { api, type Answer } from './support/http.ts';
import { downloadAndProbe } from './support/video.ts';
import { FaultAnswers } from './support/fault-answers.ts';
import { createPrivateCluster, type PrivateCluster } from './support/private-postgres.ts';

const ROUNDS = 2;
/** Tasks submitted before each restart and before each outage, so both meet running renders. */
const PER_FAULT = 3;
const LEASE_SECONDS = 5;
/** A small model whose renders take a few seconds: long enough to be caught mid-render. */
const MODELS = {
  models: [
    { id: 'restart-4s', family: 'B', backend: 'renderer', resolution: '240p', durations: [4], aspect_ratios: ['16:9'] },
  ],
};

// Restarting the PostgreSQL cluster: the server's database really goes away, not just
// its connections. On a private cluster (the shared one serves everybody else), real API and
// worker processes keep serving clients through `pg_ctl restart -m fast` and through a stop …
// start outage, round after round: no process exits, no request gets a 5xx other than 503 +
// Retry-After in the envelope, readiness follows the database, every task ends done with a
// valid MP4, and no submit creates two tasks.
describe('PostgreSQL cluster restarts and outages (private cluster, real processes)', () => {
  let cluster: PrivateCluster | string;
  let dataDir: string;
  let processes: ServerProcess[] = [];
  let key: string;
  let databaseUrl: string;

  before(async () => {
    cluster = await createPrivateCluster();
    if (typeof cluster === 'string') return;
    const admin = new pg.Client({ connectionString: cluster.url() });
    await admin.connect();
    await admin.query('CREATE DATABASE vidgen');
    await admin.end();
    databaseUrl = cluster.url('vidgen');
    dataDir = await mkdtemp(join(tmpdir(), 'vidgen-pgrestart-'));
    const modelsFile = join(dataDir, 'models.json');
    await writeFile(modelsFile, JSON.stringify(MODELS));
    const env = {
      VIDGEN_DATA_DIR: dataDir,
      VIDGEN_DATABASE_URL: databaseUrl,
      VIDGEN_MODELS_FILE: modelsFile,
      VIDGEN_SIGNING_SECRET: 'pgrestart',
      VIDGEN_POLL_MS: '200',
      VIDGEN_LEASE_SECONDS: String(LEASE_SECONDS),
      VIDGEN_HEARTBEAT_SECONDS: '1',
      VIDGEN_WORKER_CONCURRENCY: '2',
    };
    key = (await runServerCommand(['keys', 'create', '--account', 'pgrestart'], env)).stdout.trim();
    processes = [await spawnServer(env, ['--role', 'api']), await spawnServer(env, ['--role', 'worker'])];
  });
  after(async () => {
    for (const p of processes) await p.stop();
    if (typeof cluster === 'object') await cluster.destroy();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps serving through fast restarts and stop/start outages, round after round', async (t) => {
    if (typeof cluster === 'string') return t.skip(cluster);
    const db = cluster;
    const [apiProcess, workerProcess] = processes;
    const raw = api(apiProcess.url, key);
    const answers = new FaultAnswers();
    const { problems } = answers;
    const check = (what: string, a: Answer) => answers.check(what, a);
    // The SDK rides out the faults on its own (Retry-After, one Idempotency-Key per create);
    // every answer it got is checked as well.
    const sdk = new VidgenClient({
      baseURL: apiProcess.url,
      apiKey: key,
      maxRetries: 60,
      backoff: { initialDelayMs: 200, maxDelayMs: 1000 },
      fetch: answers.fetch,
    });
    const ids = new Map<string, string>();
    const submit = async (name: string) => {
      for (let i = 0; i < PER_FAULT; i++) {
        const created = await sdk.videoGenerations.create(
          { model: 'restart-4s', prompt: `restart ${name} ${i}` },
          { idempotencyKey: `${name}-${i}` },
        );
        ids.set(`${name}-${i}`, created.task_id);
      }
    };
    const statusOf = async (id: string) =>
      check(`poll ${id}`, await raw.get(`/v1/video/generations/${id}`)).body?.status;
    /** Holds until one of the tasks renders, so the fault that follows meets a running attempt. */
    const someRunning = async () => {
      for (;;) {
        for (const id of ids.values()) if ((await statusOf(id)) === 'IN_PROGRESS') return;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    // Clients keep polling and replaying submits right through each restart.
    let traffic = true;
    const background = (async () => {
      while (traffic) {
        for (const [name, id] of ids) {
          const replay = check(
            `replay ${name}`,
            await raw.post(
              '/v1/video/generations',
              { model: 'restart-4s', prompt: `restart ${name.replace(/-(\d+)$/, ' $1')}` },
              { 'idempotency-key': name },
            ),
          );
          if (replay.status === 200 && replay.body.task_id !== id)
            problems.push(`replay ${name} answered another task: ${replay.body.task_id} ≠ ${id}`);
          await statusOf(id);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    })().catch((err) => {
      // No answer at all: the API process is gone (a crash on a lost connection, as once happened).
      problems.push(
        `a request got no answer (${err.cause?.code ?? err.message}); API process exit code ${apiProcess.child.exitCode}`,
      );
    });
    const readiness = async (want: number) => {
      for (const p of processes) {
        while ((await fetch(`${p.url}/readyz`)).status !== want) {
          assert.equal(p.child.exitCode, null, `${p.url} exited before /readyz answered ${want}`);
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    };

    let restarts = 0;
    let outages = 0;
    try {
      for (let round = 1; round <= ROUNDS; round++) {
        await submit(`r${round}-restart`);
        await someRunning();
        await db.restart();
        restarts++;

        await submit(`r${round}-outage`);
        await someRunning();
        await db.stop();
        outages++;
        await readiness(503);
        // Past the API key cache (2 s), so authentication must ask the database too. The second
        // round's outage outlasts the leases, so running tasks are reclaimed, not just resumed.
        await new Promise((r) => setTimeout(r, round === 1 ? 2500 : (LEASE_SECONDS + 2) * 1000));
        const anyId = [...ids.values()][0];
        const refused = [
          await raw.post(
            '/v1/video/generations',
            { model: 'restart-4s', prompt: 'in the outage' },
            { 'idempotency-key': `in-outage-${round}` },
          ),
          await raw.get(`/v1/video/generations/${anyId}`),
          await raw.get(`/v1/videos/${anyId}`),
          await raw.get('/v1/video/generations'),
          await raw.post('/v1/videos/generations', { model: 'restart-4s', prompt: 'family A in the outage' }),
        ];
        for (const [i, a] of refused.entries())
          assert.equal(
            check(`outage request ${i}`, a).status,
            503,
            `outage request ${i}: ${a.status} ${JSON.stringify(a.body)}`,
          );
        await db.start();
        await readiness(200);
      }
    } finally {
      traffic = false;
      await background;
    }

    assert.deepEqual(problems, [], 'through the faults');
    for (const [name, id] of ids) {
      const task = await sdk.videoGenerations.wait(id, { intervalMs: 250, longPollSeconds: 5, maxWaitMs: 300_000 });
      assert.equal(task.status, 'SUCCESS', name);
      const { probe } = await downloadAndProbe(`${apiProcess.url}/v1/videos/${id}/content`, {
        authorization: `Bearer ${key}`,
      });
      assert.equal(probe.codec, 'h264', name);
      assert.deepEqual([probe.width, probe.height], [426, 240], name);
      assert.ok(Math.abs(probe.durationSeconds - 4) < 0.1, `${name}: ${probe.durationSeconds} s`);
    }
    for (const p of [apiProcess, workerProcess])
      assert.deepEqual([p.child.exitCode, p.child.signalCode], [null, null], 'no process exited');
    assert.deepEqual(problems, []);
    const own = new pg.Client({ connectionString: databaseUrl });
    await own.connect();
    try {
      const { rows } = await own.query('SELECT count(*)::int AS n, count(DISTINCT id)::int AS distinct_ids FROM tasks');
      assert.deepEqual(
        rows[0],
        { n: ids.size, distinct_ids: ids.size },
        'one task per submit: none created twice, none in the outage',
      );
      assert.equal(new Set(ids.values()).size, ids.size);
    } finally {
      await own.end();
    }
    t.diagnostic(
      `${restarts} fast restarts and ${outages} stop/start outages survived; ${ids.size} tasks done; ${answers.unavailable} answers were 503 + Retry-After, none another 5xx`,
    );
  });
});
