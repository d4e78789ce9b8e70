import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { spawnServer, runServerCommand, type ServerProcess } from './support/process.ts';
import { api, pollUntil } from './support/http.ts';
import { downloadAndProbe } from './support/video.ts';
import { createPostgresDatabase, type TestDatabase } from '../../packages/server/test/support/databases.ts';

const TASK = 1_000_000_000; // the price of one task: the model makes 1 s videos at this price per second
const ACCOUNTS = ['m1', 'm2', 'm3', 'm4'];
/** Each account pays for 50 tasks: 200 in all. */
const CREDITS = 50 * TASK;
const ROUNDS = 4;
/** 13 submits per account and round, 52 in all: the last 2 of each account find the credits spent (402). */
const PER_ROUND = 13;
/**
 * The cheapest render the catalog allows, so that 200 tasks fit on a shared 2-core machine: the
 * shortest duration (1 s), the smallest resolution a model may name ("100p", 178×100) and x264's
 * fastest preset (VIDGEN_RENDER_PRESET below).
 */
const MODEL = {
  id: 'tiny-1s',
  family: 'B',
  backend: 'renderer',
  resolution: '100p',
  durations: [1],
  aspect_ratios: ['16:9'],
  price: { usd_ticks_per_second: TASK },
};

// The ledger at scale: 200 tasks from 4 metered accounts, two API and two worker processes on
// PostgreSQL, kill -9 of a worker mid-render and of an API process mid-submit, every round. Every
// account's balance ends at its grants minus the settled cost of its succeeded tasks, nothing is
// held any more, no submit made two tasks, and the ledger verifies.
describe('metered scale-out survives kill -9 of workers and API processes (PostgreSQL, 200 tasks)', () => {
  let database: TestDatabase | string;
  const dirs: string[] = [];
  const processes: ServerProcess[] = [];

  before(async () => {
    database = await createPostgresDatabase();
  });
  after(async () => {
    for (const p of processes) await p.stop('SIGKILL');
    if (typeof database !== 'string') await database.drop();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it('every balance equals grants minus the settled cost of succeeded tasks, and the ledger verifies', async (t) => {
    if (typeof database === 'string') return t.skip(database);
    const started = Date.now();
    const catalogDir = await mkdtemp(join(tmpdir(), 'vidgen-econ-scale-'));
    dirs.push(catalogDir);
    const modelsFile = join(catalogDir, 'models.json');
    await writeFile(modelsFile, JSON.stringify({ models: [MODEL] }));
    // One data dir for every process, as on one machine with local disk: a video a worker stored
    // is served by either API process (on many machines, S3 plays this part).
    const dataDir = await mkdtemp(join(tmpdir(), 'vidgen-econ-node-'));
    dirs.push(dataDir);
    const env = {
      VIDGEN_DATA_DIR: dataDir,
      VIDGEN_DATABASE_URL: (database as TestDatabase).location,
      VIDGEN_MODELS_FILE: modelsFile,
      VIDGEN_SIGNING_SECRET: 'econ-scale',
      VIDGEN_WORKER_CONCURRENCY: '2',
      VIDGEN_RENDER_PRESET: 'ultrafast',
      VIDGEN_LOG_LEVEL: 'warn',
      // A killed worker's lease runs out quickly, so its task is reclaimed within the test.
      VIDGEN_LEASE_SECONDS: '3',
      VIDGEN_HEARTBEAT_SECONDS: '1',
      VIDGEN_MAX_ATTEMPTS: '5',
    };
    const keys: string[] = [];
    for (const name of ACCOUNTS) {
      const created = await runServerCommand(['accounts', 'create', name, '--credits', String(CREDITS)], env);
      assert.equal(created.code, 0, created.stderr);
      keys.push((await runServerCommand(['keys', 'create', '--account', name], env)).stdout.trim());
    }
    const start = async (role: 'api' | 'worker') => {
      const p = await spawnServer({ ...env, VIDGEN_LOG_LEVEL: 'info' }, ['--role', role]);
      processes.push(p);
      return p;
    };
    const apis = [await start('api'), await start('api')];
    const workers = [await start('worker'), await start('worker')];
    const db = new pg.Client({ connectionString: database.location });
    await db.connect();
    t.after(() => db.end());

    // Submit with an Idempotency-Key; a connection cut by a kill is retried (same key) on the other API.
    const outcome = new Map<string, { account: number; status: number; taskId?: string }>();
    const answeredBy = new Map<ServerProcess, number>();
    const submit = async (account: number, i: number) => {
      const key = `${ACCOUNTS[account]}-${i}`;
      for (let attempt = 0; ; attempt++) {
        const target = apis[(i + attempt) % 2];
        try {
          const answer = await api(target.url, keys[account]).post(
            '/v1/video/generations',
            { model: MODEL.id, prompt: `task ${key}` },
            { 'idempotency-key': key },
          );
          answeredBy.set(target, (answeredBy.get(target) ?? 0) + 1);
          if (answer.status === 409) {
            await new Promise((r) => setTimeout(r, 200));
            continue;
          }
          outcome.set(key, { account, status: answer.status, taskId: answer.body.task_id });
          return;
        } catch {
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    };
    /**
     * Holds until `p` holds a lease, so that a kill lands mid-render, and says true. Says false when the
     * round's work is gone first (its submits answered, nothing queued or running): on a busy machine
     * the other worker can render a round's last task before `p` claims one.
     */
    const rendering = async (p: ServerProcess, batchAnswered: () => boolean) => {
      const count = async (sql: string, params: unknown[] = []) => (await db.query(sql, params)).rows[0].n as number;
      for (;;) {
        const leased = await count(
          "SELECT count(*)::int AS n FROM tasks WHERE status = 'running' AND lease_owner LIKE $1",
          [`%:${p.child.pid}:%`],
        );
        if (leased > 0) return true;
        const answered = batchAnswered();
        const open = await count("SELECT count(*)::int AS n FROM tasks WHERE status IN ('queued', 'running')");
        if (answered && open === 0) return false;
        assert.equal(p.child.exitCode, null, 'the worker is alive and will claim a task');
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const kill = async (p: ServerProcess) => p.stop('SIGKILL');

    let kills = 0;
    let midRenderKills = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const victim = round % 2;
      const answeredBefore = answeredBy.get(apis[victim]) ?? 0;
      let batchAnswered = false;
      const batch = Promise.all(
        ACCOUNTS.flatMap((_, account) =>
          Array.from({ length: PER_ROUND }, (_, j) => submit(account, round * PER_ROUND + j)),
        ),
      ).finally(() => (batchAnswered = true));
      // Both kills are watched from the batch's start, side by side, while its tasks are still coming.
      // Mid-submit: once the victim API has answered some of this batch, it dies with the rest in
      // flight, and comes back.
      const apiKill = (async () => {
        await pollUntil(
          async () => ({ status: 200, headers: new Headers(), body: answeredBy.get(apis[victim]) ?? 0 }),
          (a) => a.body > answeredBefore,
        );
        await kill(apis[victim]);
        kills++;
        apis[victim] = await start('api');
      })();
      // Mid-render: the victim worker dies while it holds a lease, and comes back.
      const workerKill = (async () => {
        if (await rendering(workers[victim], () => batchAnswered)) midRenderKills++;
        await kill(workers[victim]);
        kills++;
        workers[victim] = await start('worker');
      })();
      await Promise.all([apiKill, workerKill, batch]);
    }
    assert.ok(midRenderKills > 0, 'at least one worker was killed while it held a lease');

    const accepted = [...outcome.values()].filter((o) => o.status === 200);
    const refused = [...outcome.values()].filter((o) => o.status === 402);
    assert.equal(
      accepted.length + refused.length,
      ACCOUNTS.length * ROUNDS * PER_ROUND,
      JSON.stringify([...outcome.values()].map((o) => o.status)),
    );
    const costs = new Map<number, number>();
    const failedOf = new Map<number, number>();
    const succeededIds: Array<{ account: number; taskId: string }> = [];
    for (const o of accepted) {
      const done = await pollUntil(
        () => api(apis[1].url, keys[o.account]).get(`/v1/video/generations/${o.taskId}`),
        (a) => ['SUCCESS', 'FAILURE'].includes(a.body.status),
      );
      const ok = done.body.status === 'SUCCESS';
      if (ok) succeededIds.push({ account: o.account, taskId: o.taskId! });
      else failedOf.set(o.account, (failedOf.get(o.account) ?? 0) + 1);
      costs.set(o.account, (costs.get(o.account) ?? 0) + (ok ? done.body.usage.cost_in_usd_ticks : 0));
      assert.equal(done.body.usage.cost_in_usd_ticks, ok ? TASK : 0);
    }
    for (const [account, key] of keys.entries()) {
      const mine = accepted.filter((o) => o.account === account).length;
      // A failure releases its hold, which a later submit of the same account may then use.
      assert.ok(
        mine <= 50 + (failedOf.get(account) ?? 0),
        `${ACCOUNTS[account]}: ${mine} accepted with credits for 50`,
      );
      const state = (await api(apis[0].url, key).get('/v1/account')).body;
      assert.equal(state.balance_usd_ticks, CREDITS - (costs.get(account) ?? 0), ACCOUNTS[account]);
      assert.equal(state.held_usd_ticks, 0, ACCOUNTS[account]);
    }
    assert.ok(accepted.length >= 200, `at least 200 tasks (${accepted.length})`);
    const rows = (await db.query('SELECT count(*)::int AS n FROM tasks')).rows[0].n;
    assert.equal(rows, accepted.length, 'one task per accepted submit: none created twice');
    // Done means a verified MP4 (invariant 3): one video of each account, downloaded as a client would.
    for (const account of keys.keys()) {
      const one = succeededIds.find((s) => s.account === account);
      if (!one) continue;
      const { probe } = await downloadAndProbe(`${apis[0].url}/v1/videos/${one.taskId}/content`, {
        authorization: `Bearer ${keys[account]}`,
      });
      assert.deepEqual([probe.codec, probe.height], ['h264', 100]);
    }
    const verify = await runServerCommand(['ledger', 'verify'], env);
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    const failed = [...failedOf.values()].reduce((a, b) => a + b, 0);
    t.diagnostic(
      `${kills} kill -9s (${midRenderKills} of workers mid-render); ${accepted.length} accepted (${succeededIds.length} succeeded, ${failed} failed), ${refused.length} refused with 402; ${verify.stderr.trim()}; ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
  });
});
