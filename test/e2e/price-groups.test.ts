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
  describe(`price groups (${name})`, { skip: typeof created === 'string' ? created : false }, () => {
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

    it('a group with ratio 0.5 shows and settles exactly half the catalog price, in ticks', async () => {
      const group = await svc.admin.call('PUT', '/admin/v1/price-groups/half', {
        ratio: 0.5,
        models: { 'tiny-1s': 123 },
      });
      assert.equal(group.status, 200, JSON.stringify(group.body));
      assert.deepEqual(group.body, { id: 'half', object: 'price_group', ratio: 0.5, models: { 'tiny-1s': 123 } });
      const start = 100 * TICKS_PER_SECOND;
      const key = await svc.account('reseller', { credits_usd_ticks: start, price_group: 'half' });
      const client = api(svc.url, key);
      const models = (await client.get('/v1/models')).body.data;
      const priceOf = (id: string) => models.find((m: any) => m.id === id).pricing.usd_ticks_per_second;
      assert.equal(priceOf('tiny-5s'), TICKS_PER_SECOND / 2, 'the ratio');
      assert.equal(priceOf('tiny-1s'), 123, 'the group’s own price');
      const other = (await api(svc.url, await svc.account('list-price')).get('/v1/models')).body.data;
      assert.equal(other.find((m: any) => m.id === 'tiny-5s').pricing.usd_ticks_per_second, TICKS_PER_SECOND);

      const submit = await client.post('/v1/video/generations', { model: 'tiny-5s', prompt: 'half price' });
      assert.equal(submit.status, 200, JSON.stringify(submit.body));
      const done = await pollUntil(
        () => client.get(`/v1/video/generations/${submit.body.task_id}`),
        (a) => ['SUCCESS', 'FAILURE'].includes(a.body.status),
      );
      assert.equal(done.body.status, 'SUCCESS');
      const half = (5 * TICKS_PER_SECOND) / 2;
      assert.deepEqual(done.body.usage, { cost_in_usd_ticks: half });
      const account = (await client.get('/v1/account')).body;
      assert.deepEqual(
        [account.balance_usd_ticks, account.held_usd_ticks, account.price_group],
        [start - half, 0, 'half'],
      );
      const entries = (await svc.admin.get(`/admin/v1/ledger?task_id=${submit.body.task_id}`)).body.data;
      assert.deepEqual(
        entries.map((e: any) => [e.kind, e.amount_usd_ticks]),
        [
          ['hold', half],
          ['settle', half],
        ],
      );
      assert.deepEqual((await svc.verify()).problems, []);
    });

    it('an unknown group is refused, naming the field; null puts the account back on the catalog', async () => {
      await svc.account('grouped', { credits_usd_ticks: 0 });
      const unknown = await svc.admin.call('PATCH', '/admin/v1/accounts/grouped', { price_group: 'nope' });
      assert.deepEqual([unknown.status, unknown.body.error.param], [400, 'price_group']);
      const back = await svc.admin.call('PATCH', '/admin/v1/accounts/grouped', { price_group: null });
      assert.equal(back.body.price_group, null);
      const bad = await svc.admin.call('PUT', '/admin/v1/price-groups/odd', { ratio: 0.0000001 });
      assert.deepEqual([bad.status, bad.body.error.param], [400, 'ratio']);
    });
  });
}
