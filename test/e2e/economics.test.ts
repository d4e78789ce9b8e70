import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { NodeVidgenClient as VidgenClient } from '../../packages/client/src/node/index.ts';
import {
  createPostgresDatabase,
  createSqliteDatabase,
  type TestDatabase,
} from '../../packages/server/test/support/databases.ts';
import { api, pollUntil } from './support/http.ts';
import { startImageServer } from './support/images.ts';
import { startEconomicsService, TICKS_PER_SECOND, type EconomicsService } from './support/economics.ts';

const FIVE_SECONDS = 5 * TICKS_PER_SECOND;
const ended = (a: { body: any }) => ['SUCCESS', 'FAILURE'].includes(a.body.status);

// The money rules (docs/economics.md), against real servers on SQLite and on PostgreSQL.
for (const [name, create] of [
  ['SQLite', createSqliteDatabase],
  ['PostgreSQL', createPostgresDatabase],
] as const) {
  const created = await create();
  describe(`credits and limits (${name})`, { skip: typeof created === 'string' ? created : false }, () => {
    let db: TestDatabase;
    let svc: EconomicsService;
    let images: Awaited<ReturnType<typeof startImageServer>>;
    before(async () => {
      db = created as TestDatabase;
      images = await startImageServer();
      svc = await startEconomicsService(name === 'PostgreSQL' ? db.location : undefined, {
        VIDGEN_RATE_WINDOW_SECONDS: '5',
      });
    });
    after(async () => {
      await svc?.close();
      await images?.close();
      await db?.drop();
    });

    it('credits for exactly three 5 s tasks: three succeed, the fourth is 402, the balance is zero', async () => {
      const key = await svc.account('three', { credits_usd_ticks: 3 * FIVE_SECONDS });
      const client = api(svc.url, key);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const submit = await client.post(
          '/v1/video/generations',
          { model: 'tiny-5s', prompt: `paid ${i}` },
          { 'idempotency-key': `three-${i}` },
        );
        assert.equal(submit.status, 200, JSON.stringify(submit.body));
        ids.push(submit.body.task_id);
      }
      // A replay is neither held again nor refused.
      const replay = await client.post(
        '/v1/video/generations',
        { model: 'tiny-5s', prompt: 'paid 0' },
        { 'idempotency-key': 'three-0' },
      );
      assert.equal(replay.status, 200);
      assert.equal(replay.body.task_id, ids[0]);
      const fourth = await client.post('/v1/video/generations', { model: 'tiny-5s', prompt: 'one too many' });
      assert.equal(fourth.status, 402);
      assert.equal(fourth.body.error.code, 'insufficient_credits');
      const fourthA = await client.post('/v1/videos/generations', {
        model: 'tiny-a',
        prompt: 'one too many',
        duration: 1,
        image: { url: `${images.url}/photo.png` },
      });
      assert.equal(fourthA.status, 402, 'family A answers 402 in its own envelope');
      assert.equal(fourthA.body.error.code, 'insufficient_credits');
      assert.equal(
        (await client.get('/v1/video/generations?limit=100')).body.data.length,
        3,
        'the refused submits created nothing',
      );

      for (const id of ids) {
        const done = await pollUntil(() => client.get(`/v1/video/generations/${id}`), ended);
        assert.equal(done.body.status, 'SUCCESS', JSON.stringify(done.body));
        assert.deepEqual(done.body.usage, { cost_in_usd_ticks: FIVE_SECONDS });
      }
      const listed = await client.get('/v1/video/generations');
      assert.deepEqual(
        listed.body.data.map((t: any) => t.usage?.cost_in_usd_ticks),
        [FIVE_SECONDS, FIVE_SECONDS, FIVE_SECONDS],
      );
      const account = await client.get('/v1/account');
      assert.equal(account.body.balance_usd_ticks, 0);
      assert.equal(account.body.held_usd_ticks, 0);
      assert.equal(account.body.metered, true);
      const usage = await client.get('/v1/usage');
      assert.equal(usage.body.data.length, 1);
      assert.equal(usage.body.data[0].tasks, 3);
      assert.equal(usage.body.data[0].cost_in_usd_ticks, 3 * FIVE_SECONDS);
      const kinds = (await svc.admin.get('/admin/v1/ledger?account=three')).body.data.map((e: any) => e.kind);
      assert.deepEqual(kinds.sort(), ['grant', 'hold', 'hold', 'hold', 'settle', 'settle', 'settle']);
      assert.deepEqual((await svc.verify()).problems, []);
    });

    it('a failed task, one canceled queued and one canceled running: each hold released once, balance back', async () => {
      const start = 200 * TICKS_PER_SECOND;
      const key = await svc.account('refunds', { credits_usd_ticks: start });
      const client = api(svc.url, key);
      const failed = await client.post('/v1/video/generations', {
        model: 'tiny-5s',
        prompt: 'p',
        image: `${images.url}/gone.png`,
      });
      assert.equal(failed.status, 200);
      const failure = await pollUntil(() => client.get(`/v1/video/generations/${failed.body.task_id}`), ended);
      assert.equal(failure.body.error.code, 'image_unreachable');
      assert.deepEqual(failure.body.usage, { cost_in_usd_ticks: 0 });

      const running = await client.post('/v1/video/generations', { model: 'tiny-long', prompt: 'long' });
      await pollUntil(
        () => client.get(`/v1/video/generations/${running.body.task_id}`),
        (a) => a.body.status !== 'queued',
      );
      // One worker slot, taken: this one stays queued.
      const queued = await client.post('/v1/video/generations', { model: 'tiny-long', prompt: 'waits' });
      const held = await client.get('/v1/account');
      assert.equal(held.body.held_usd_ticks, 120 * TICKS_PER_SECOND);
      assert.equal((await client.post(`/v1/video/generations/${queued.body.task_id}/cancel`)).body.status, 'FAILURE');
      const canceledRunning = await client.post(`/v1/video/generations/${running.body.task_id}/cancel`);
      assert.equal(canceledRunning.status, 200, 'still running when canceled');

      const account = await client.get('/v1/account');
      assert.equal(account.body.balance_usd_ticks, start);
      assert.equal(account.body.held_usd_ticks, 0);
      for (const id of [failed.body.task_id, queued.body.task_id, running.body.task_id]) {
        const entries = (await svc.admin.get(`/admin/v1/ledger?task_id=${id}`)).body.data;
        assert.deepEqual(entries.map((e: any) => [e.kind, e.amount_usd_ticks]).sort(), [
          ['hold', entries[0].amount_usd_ticks],
          ['release', entries[0].amount_usd_ticks],
        ]);
      }
      assert.deepEqual((await svc.verify()).problems, []);
    });

    it('50 concurrent submits against a balance that covers 10: exactly 10 accepted', async () => {
      const key = await svc.account('crowd', { credits_usd_ticks: 10 * TICKS_PER_SECOND });
      const client = api(svc.url, key);
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          client.post('/v1/video/generations', { model: 'tiny-1s', prompt: `crowd ${i}` }),
        ),
      );
      const codes = answers.map((a) => a.status);
      assert.equal(codes.filter((c) => c === 200).length, 10, JSON.stringify(codes));
      assert.equal(codes.filter((c) => c === 402).length, 40);
      assert.equal((await client.get('/v1/video/generations?limit=100')).body.data.length, 10);
      const account = await client.get('/v1/account');
      assert.equal(account.body.available_usd_ticks, 0);
      assert.deepEqual((await svc.verify()).problems, []);
    });

    it('the per-key rate limit answers 429 with Retry-After, and the SDK backs off and succeeds', async () => {
      const key = await svc.account('hasty', { limits: { requests_per_minute: 2 } });
      const client = api(svc.url, key);
      // The window is 5 s here: on a slow machine it may turn between submits, so submit until refused
      // (the exact count per window, across processes, is test/e2e/accepted-creates.test.ts's).
      let limited = await client.post('/v1/video/generations', { model: 'tiny-1s', prompt: 'r0' });
      let accepted = 0;
      for (let i = 1; limited.status === 200 && i < 20; i++) {
        accepted++;
        limited = await client.post('/v1/video/generations', { model: 'tiny-1s', prompt: `r${i}` });
      }
      assert.ok(accepted >= 2, `${accepted} accepted before the limit`);
      assert.equal(limited.status, 429);
      assert.equal(limited.body.error.code, 'rate_limit_exceeded');
      const retryAfter = Number(limited.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 5, `Retry-After ${retryAfter}`);
      const sdk = new VidgenClient({ baseURL: svc.url, apiKey: key, maxRetries: 5 });
      const created = await sdk.videoGenerations.create({ model: 'tiny-1s', prompt: 'patient' });
      assert.ok(created.task_id);
    });

    it('the active-task cap answers 429 too_many_tasks, and the SDK backs off until a task ends', async () => {
      const key = await svc.account('capped', { limits: { max_active_tasks: 1 } });
      const client = api(svc.url, key);
      const first = await client.post('/v1/video/generations', { model: 'tiny-1s', prompt: 'first' });
      assert.equal(first.status, 200);
      const second = await client.post('/v1/video/generations', { model: 'tiny-1s', prompt: 'second' });
      assert.equal(second.status, 429);
      assert.equal(second.body.error.code, 'too_many_tasks');
      assert.ok(Number(second.headers.get('retry-after')) >= 1);
      const sdk = new VidgenClient({ baseURL: svc.url, apiKey: key, maxRetries: 20 });
      const created = await sdk.videoGenerations.create({ model: 'tiny-1s', prompt: 'second, patiently' });
      const done = await sdk.videoGenerations.wait(created.task_id, { intervalMs: 200, maxWaitMs: 120_000 });
      assert.equal(done.status, 'SUCCESS');
    });
  });
}
