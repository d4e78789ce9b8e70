import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  createPostgresDatabase,
  createSqliteDatabase,
  type TestDatabase,
} from '../../packages/server/test/support/databases.ts';
import { api } from './support/http.ts';
import { startEconomicsService, TICKS_PER_SECOND, type EconomicsService } from './support/economics.ts';

for (const [name, create] of [
  ['SQLite', createSqliteDatabase],
  ['PostgreSQL', createPostgresDatabase],
] as const) {
  const created = await create();
  describe(`sanity caps (${name})`, { skip: typeof created === 'string' ? created : false }, () => {
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

    it('a task over the per-task cap, and one over the day’s cap, are refused before anything is held', async () => {
      const key = await svc.account('capped-spend', {
        credits_usd_ticks: 1000 * TICKS_PER_SECOND,
        limits: { max_task_usd_ticks: 10 * TICKS_PER_SECOND, max_daily_usd_ticks: 12 * TICKS_PER_SECOND },
      });
      const client = api(svc.url, key);
      const long = await client.post('/v1/video/generations', { model: 'tiny-long', prompt: '60 s' });
      assert.deepEqual([long.status, long.body.error.code], [402, 'spend_cap_exceeded']);
      assert.match(long.body.error.message, /cap of 10000000000 per task/);
      for (let i = 0; i < 2; i++)
        assert.equal((await client.post('/v1/video/generations', { model: 'tiny-5s', prompt: `ok ${i}` })).status, 200);
      // 10 s held today; 5 more would make 15, over the 12 of the day.
      const third = await client.post('/v1/video/generations', { model: 'tiny-5s', prompt: 'over the day' });
      assert.deepEqual([third.status, third.body.error.code], [402, 'spend_cap_exceeded']);
      assert.match(third.body.error.message, /daily cap of 12000000000/);
      assert.equal((await client.post('/v1/video/generations', { model: 'tiny-1s', prompt: 'fits' })).status, 200);
      const account = (await client.get('/v1/account')).body;
      assert.deepEqual(account.limits, {
        requests_per_minute: null,
        max_active_tasks: null,
        max_task_usd_ticks: 10 * TICKS_PER_SECOND,
        max_daily_usd_ticks: 12 * TICKS_PER_SECOND,
      });
      assert.equal((await client.get('/v1/video/generations?limit=10')).body.data.length, 3);
      assert.deepEqual((await svc.verify()).problems, []);
    });
  });
}
