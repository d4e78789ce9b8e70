import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  createPostgresDatabase,
  createSqliteDatabase,
  type TestDatabase,
} from '../../packages/server/test/support/databases.ts';
import { api, pollUntil } from './support/http.ts';
import { PRICED_MODELS, startEconomicsService, TICKS_PER_SECOND, type EconomicsService } from './support/economics.ts';

// A model whose priority and batch ratios are its own; the others keep 1.5 and 0.5.
const MODELS = {
  models: [
    ...PRICED_MODELS.models,
    {
      id: 'tiny-ratios',
      family: 'B',
      backend: 'renderer',
      resolution: '144p',
      durations: [1],
      aspect_ratios: ['16:9'],
      price: { usd_ticks_per_second: 7, batch_ratio: 0.3, priority_ratio: 2 },
    },
  ],
};
const ended = (a: { body: any }) => ['SUCCESS', 'FAILURE'].includes(a.body.status);

// Service tiers (docs/batch.md, "Service tiers"): each dialect takes `service_tier`, the account's
// operator says which it may use, the task shows its tier, the ledger holds and settles the tier's
// price, and usage reports split by tier.
for (const [name, create] of [
  ['SQLite', createSqliteDatabase],
  ['PostgreSQL', createPostgresDatabase],
] as const) {
  const created = await create();
  describe(`service tiers (${name})`, { skip: typeof created === 'string' ? created : false }, () => {
    let db: TestDatabase;
    let svc: EconomicsService;
    before(async () => {
      db = created as TestDatabase;
      svc = await startEconomicsService(name === 'PostgreSQL' ? db.location : undefined, {}, MODELS);
    });
    after(async () => {
      await svc?.close();
      await db?.drop();
    });

    it('refuses a tier the account may not use, naming service_tier in each dialect, and writes nothing', async () => {
      const key = await svc.account('tiers-refused', { credits_usd_ticks: 10 * TICKS_PER_SECOND });
      const client = api(svc.url, key);
      const b = await client.post('/v1/video/generations', { model: 'tiny-1s', prompt: 'p', service_tier: 'priority' });
      assert.equal(b.status, 400);
      assert.deepEqual([b.body.error.code, b.body.error.param], ['service_tier_not_allowed', 'service_tier']);
      const a = await client.post('/v1/videos/generations', {
        model: 'tiny-a',
        prompt: 'p',
        duration: 1,
        service_tier: 'priority',
      });
      assert.deepEqual([a.status, a.body.error.param], [400, 'service_tier']);
      const o = await client.post('/v1/videos', { model: 'tiny-o', prompt: 'p', service_tier: 'priority' });
      assert.deepEqual([o.status, o.body.error.param], [400, 'service_tier']);
      const unknown = await client.post('/v1/video/generations', { model: 'tiny-1s', prompt: 'p', service_tier: 'x' });
      assert.equal(unknown.status, 400);
      assert.match(JSON.stringify(unknown.body), /service_tier/);
      assert.equal((await client.get('/v1/video/generations')).body.data.length, 0);
      const ledger = (await svc.admin.get('/admin/v1/ledger?account=tiers-refused')).body.data;
      assert.deepEqual(
        ledger.map((e: any) => e.kind),
        ['grant'],
      );
    });

    it('prices priority and flex at the catalog ratios on top of the price group, rounded down to the tick', async () => {
      const key = await svc.account('tiers-paid', { credits_usd_ticks: 10 * TICKS_PER_SECOND });
      const patched = await svc.admin.call('PATCH', '/admin/v1/accounts/tiers-paid', {
        service_tiers: ['default', 'flex', 'priority'],
      });
      assert.deepEqual(patched.body.service_tiers, ['default', 'flex', 'priority']);
      assert.equal((await svc.admin.call('PUT', '/admin/v1/price-groups/half', { ratio: 0.5 })).status, 200);
      const client = api(svc.url, key);
      const cases = [
        // 1 s at 10⁹ ticks: priority 1.5×, flex 0.5×, default 1×.
        { model: 'tiny-1s', tier: 'priority', cost: 1_500_000_000 },
        { model: 'tiny-1s', tier: 'flex', cost: 500_000_000 },
        { model: 'tiny-1s', tier: undefined, cost: 1_000_000_000 },
        // 7 ticks × 0.3 = 2.1 → 2; × 2 = 14.
        { model: 'tiny-ratios', tier: 'flex', cost: 2 },
        { model: 'tiny-ratios', tier: 'priority', cost: 14 },
      ];
      for (const c of cases) {
        const submit = await client.post('/v1/video/generations', {
          model: c.model,
          prompt: `tier ${c.tier}`,
          ...(c.tier ? { service_tier: c.tier } : {}),
        });
        assert.equal(submit.status, 200, JSON.stringify(submit.body));
        const done = await pollUntil(() => client.get(`/v1/video/generations/${submit.body.task_id}`), ended);
        assert.equal(done.body.status, 'SUCCESS');
        assert.equal(done.body.service_tier, c.tier ?? 'default');
        assert.deepEqual(done.body.usage, { cost_in_usd_ticks: c.cost }, `${c.model} ${c.tier}`);
        const entries = (await svc.admin.get(`/admin/v1/ledger?task_id=${submit.body.task_id}`)).body.data;
        assert.deepEqual(
          entries.map((e: any) => [e.kind, e.amount_usd_ticks]),
          [
            ['hold', c.cost],
            ['settle', c.cost],
          ],
        );
      }
      // On top of a price group: half the catalog, then the tier's ratio (1 × 0.5 × 1.5).
      assert.equal(
        (await svc.admin.call('PATCH', '/admin/v1/accounts/tiers-paid', { price_group: 'half' })).body.price_group,
        'half',
      );
      const grouped = await client.post('/v1/video/generations', {
        model: 'tiny-1s',
        prompt: 'grouped',
        service_tier: 'priority',
      });
      const done = await pollUntil(() => client.get(`/v1/video/generations/${grouped.body.task_id}`), ended);
      assert.deepEqual(done.body.usage, { cost_in_usd_ticks: 750_000_000 });
      const usage = (await svc.admin.get('/admin/v1/usage?account=tiers-paid')).body.data;
      const byTier = new Map<string, number>();
      for (const row of usage) byTier.set(row.service_tier, (byTier.get(row.service_tier) ?? 0) + row.tasks);
      assert.deepEqual(Object.fromEntries(byTier), { default: 1, flex: 2, priority: 3 });
      assert.deepEqual((await svc.verify()).problems, []);
    });

    it('shows the tier in family A and OpenAI answers', async () => {
      const key = await svc.account('tiers-dialects', { service_tiers: ['default', 'flex'] });
      const client = api(svc.url, key);
      const a = await client.post('/v1/videos/generations', {
        model: 'tiny-a',
        prompt: 'p',
        duration: 1,
        service_tier: 'flex',
      });
      assert.equal(a.status, 200, JSON.stringify(a.body));
      assert.equal((await client.get(`/v1/videos/${a.body.request_id}`)).body.service_tier, 'flex');
      const o = await client.post('/v1/videos', { model: 'tiny-o', prompt: 'p', service_tier: 'flex' });
      assert.equal(o.status, 200, JSON.stringify(o.body));
      assert.equal(o.body.service_tier, 'flex');
    });
  });
}
