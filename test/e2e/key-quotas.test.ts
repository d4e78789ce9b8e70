import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  createPostgresDatabase,
  createSqliteDatabase,
  type TestDatabase,
} from '../../packages/server/test/support/databases.ts';
import { api, pollUntil } from './support/http.ts';
import { startEconomicsService, TICKS_PER_SECOND, type EconomicsService } from './support/economics.ts';

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
        tasks_used: 3,
        usd_ticks_used: 3 * TICKS_PER_SECOND,
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
  });
}
