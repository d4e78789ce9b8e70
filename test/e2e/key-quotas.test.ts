import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  createPostgresDatabase,
  createSqliteDatabase,
  type TestDatabase,
} from '../../packages/server/test/support/databases.ts';
import { api, pollUntil } from './support/http.ts';
import { PRICED_MODELS, startEconomicsService, TICKS_PER_SECOND, type EconomicsService } from './support/economics.ts';

for (const [name, create] of [
  ['SQLite', createSqliteDatabase],
  ['PostgreSQL', createPostgresDatabase],
] as const) {
  const created = await create();
  describe(`API key quotas (${name})`, { skip: typeof created === 'string' ? created : false }, () => {
    let db: TestDatabase;
    let svc: EconomicsService;
    before(async () => {
      db = created as TestDatabase;
      svc = await startEconomicsService(name === 'PostgreSQL' ? db.location : undefined);
    });
    after(async () => {
      await svc?.close();
      await db?.drop();
    });

    const keyOf = async (account: string) => {
      const key = await svc.admin.post(`/admin/v1/accounts/${account}/keys`);
      return { id: key.body.id as string, secret: key.body.key as string };
    };
    const setQuota = (account: string, keyId: string, quota: unknown) =>
      svc.admin.call('PATCH', `/admin/v1/accounts/${account}/keys/${keyId}`, { quota });
    const listed = async (account: string, keyId: string) =>
      (await svc.admin.get(`/admin/v1/accounts/${account}/keys`)).body.data.find((k: any) => k.id === keyId);

    it('a quota of exactly three tasks: the fourth is 402 naming the quota; the account’s other key is free', async () => {
      await svc.account('quota-tasks');
      const [limited, other] = [await keyOf('quota-tasks'), await keyOf('quota-tasks')];
      const set = await setQuota('quota-tasks', limited.id, { max_tasks: 3 });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      const client = api(svc.url, limited.secret);
      // Concurrent: the quota row's lock lets exactly three through.
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          client.post('/v1/video/generations', { model: 'tiny-1s', prompt: `quota ${i}` }),
        ),
      );
      const codes = answers.map((a) => a.status).sort();
      assert.deepEqual(codes, [200, 200, 200, 402, 402, 402], JSON.stringify(answers.map((a) => a.body)));
      const refused = answers.find((a) => a.status === 402)!;
      assert.equal(refused.body.error.code, 'key_quota_exceeded');
      assert.match(refused.body.error.message, /quota of 3 tasks/);
      assert.equal((await client.get('/v1/video/generations?limit=100')).body.data.length, 3, 'nothing else stored');
      assert.deepEqual((await listed('quota-tasks', limited.id)).quota, {
        max_tasks: 3,
        max_usd_ticks: null,
        period: 'total',
        tasks_used: 3,
        usd_ticks_used: 3 * TICKS_PER_SECOND,
        resets_at: null,
      });
      const free = await api(svc.url, other.secret).post('/v1/video/generations', { model: 'tiny-1s', prompt: 'x' });
      assert.equal(free.status, 200);
      assert.equal((await listed('quota-tasks', other.id)).quota, null);
      // Lifting the quota lets the key create again.
      assert.equal((await setQuota('quota-tasks', limited.id, null)).body.quota, null);
      assert.equal((await client.post('/v1/video/generations', { model: 'tiny-1s', prompt: 'again' })).status, 200);
    });

    it('a spend quota: what ended tasks cost counts, a failure gives its price back, and the next over it is 402', async () => {
      const account = 'quota-spend';
      await svc.account(account, { credits_usd_ticks: 100 * TICKS_PER_SECOND });
      const key = await keyOf(account);
      await setQuota(account, key.id, { max_usd_ticks: 7 * TICKS_PER_SECOND });
      const client = api(svc.url, key.secret);
      const first = await client.post('/v1/video/generations', { model: 'tiny-5s', prompt: 'five' });
      assert.equal(first.status, 200);
      const failed = await client.post('/v1/video/generations', {
        model: 'tiny-1s',
        prompt: 'fails',
        image: 'http://127.0.0.1:9/gone.png',
      });
      assert.equal(failed.status, 200);
      for (const id of [first.body.task_id, failed.body.task_id])
        await pollUntil(
          () => client.get(`/v1/video/generations/${id}`),
          (a) => ['SUCCESS', 'FAILURE'].includes(a.body.status),
        );
      assert.equal((await listed(account, key.id)).quota.usd_ticks_used, 5 * TICKS_PER_SECOND);
      const over = await client.post('/v1/video/generations', { model: 'tiny-5s', prompt: 'over' });
      assert.deepEqual([over.status, over.body.error.code], [402, 'key_quota_exceeded']);
      assert.match(over.body.error.message, /quota of 7000000000 USD ticks/);
      assert.equal((await client.post('/v1/video/generations', { model: 'tiny-1s', prompt: 'fits' })).status, 200);
      assert.deepEqual((await svc.verify()).problems, []);
    });

    it('a monthly quota starts over when the UTC month ends: the next submit resets it, no sweeper needed', async () => {
      // The service's own clock, an hour before a month's end, moved on by the test.
      const january = Date.UTC(2031, 0, 31, 23, 0, 0);
      let offset = january - Date.now();
      const monthly = await startEconomicsService(name === 'PostgreSQL' ? db.location : undefined, {}, PRICED_MODELS, {
        clock: () => Date.now() + offset,
      });
      try {
        await monthly.admin.post('/admin/v1/accounts', {
          id: 'quota-monthly',
          credits_usd_ticks: 100 * TICKS_PER_SECOND,
        });
        const key = await monthly.admin.post('/admin/v1/accounts/quota-monthly/keys');
        const client = api(monthly.url, key.body.key);
        const quotaOf = async () =>
          (await monthly.admin.get('/admin/v1/accounts/quota-monthly/keys')).body.data.find(
            (k: any) => k.id === key.body.id,
          ).quota;
        const set = await monthly.admin.call('PATCH', `/admin/v1/accounts/quota-monthly/keys/${key.body.id}`, {
          quota: { max_tasks: 2, period: 'month' },
        });
        assert.equal(set.status, 200, JSON.stringify(set.body));
        const february = Date.UTC(2031, 1, 1) / 1000;
        assert.deepEqual(set.body.quota, {
          max_tasks: 2,
          max_usd_ticks: null,
          period: 'month',
          tasks_used: 0,
          usd_ticks_used: 0,
          resets_at: february,
        });
        const ids: string[] = [];
        for (const i of [1, 2]) {
          const ok = await client.post('/v1/video/generations', { model: 'tiny-1s', prompt: `january ${i}` });
          assert.equal(ok.status, 200, JSON.stringify(ok.body));
          ids.push(ok.body.task_id);
        }
        const refused = await client.post('/v1/video/generations', { model: 'tiny-1s', prompt: 'january 3' });
        assert.deepEqual([refused.status, refused.body.error.code], [402, 'key_quota_exceeded']);
        assert.equal(
          refused.body.error.message,
          "This API key's monthly quota of 2 tasks is used up (2 created this month); it starts over at " +
            '2031-02-01T00:00:00Z.',
        );
        for (const id of ids)
          await pollUntil(
            () => client.get(`/v1/video/generations/${id}`),
            (a) => a.body.status === 'SUCCESS',
          );
        assert.deepEqual([(await quotaOf()).tasks_used, (await quotaOf()).usd_ticks_used], [2, 2 * TICKS_PER_SECOND]);

        // Past midnight UTC: nothing used yet in February, before any submit has reset the row.
        offset += 2 * 3600_000;
        const march = Date.UTC(2031, 2, 1) / 1000;
        assert.deepEqual(
          [(await quotaOf()).tasks_used, (await quotaOf()).usd_ticks_used, (await quotaOf()).resets_at],
          [0, 0, march],
        );
        for (const i of [1, 2]) {
          const ok = await client.post('/v1/video/generations', { model: 'tiny-1s', prompt: `february ${i}` });
          assert.equal(ok.status, 200, JSON.stringify(ok.body));
        }
        const again = await client.post('/v1/video/generations', { model: 'tiny-1s', prompt: 'february 3' });
        assert.deepEqual([again.status, again.body.error.code], [402, 'key_quota_exceeded']);
        assert.match(again.body.error.message, /starts over at 2031-03-01T00:00:00Z/);
        assert.deepEqual([(await quotaOf()).tasks_used, (await quotaOf()).usd_ticks_used], [2, 2 * TICKS_PER_SECOND]);
        // Raising the limit keeps what February used: one more fits, then the quota refuses again.
        const raised = await monthly.admin.call('PATCH', `/admin/v1/accounts/quota-monthly/keys/${key.body.id}`, {
          quota: { max_tasks: 3, period: 'month' },
        });
        assert.deepEqual(
          [raised.body.quota.tasks_used, raised.body.quota.usd_ticks_used, raised.body.quota.resets_at],
          [2, 2 * TICKS_PER_SECOND, march],
        );
        assert.equal(
          (await client.post('/v1/video/generations', { model: 'tiny-1s', prompt: 'february 4' })).status,
          200,
        );
        const full = await client.post('/v1/video/generations', { model: 'tiny-1s', prompt: 'february 5' });
        assert.deepEqual([full.status, full.body.error.code], [402, 'key_quota_exceeded']);
        assert.deepEqual((await monthly.verify()).problems, []);
      } finally {
        await monthly.close();
      }
    });
  });
}
