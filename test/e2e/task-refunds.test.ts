import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  createPostgresDatabase,
  createSqliteDatabase,
  type TestDatabase,
} from '../../packages/server/test/support/databases.ts';
import { api, pollUntil } from './support/http.ts';
import { startEconomicsService, TICKS_PER_SECOND, type EconomicsService } from './support/economics.ts';

const FIVE_SECONDS = 5 * TICKS_PER_SECOND;

for (const [name, create] of [
  ['SQLite', createSqliteDatabase],
  ['PostgreSQL', createPostgresDatabase],
] as const) {
  const created = await create();
  describe(`task refunds (${name})`, { skip: typeof created === 'string' ? created : false }, () => {
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

    const succeeded = async (key: string) => {
      const client = api(svc.url, key);
      const submit = await client.post('/v1/video/generations', { model: 'tiny-5s', prompt: 'refund me' });
      assert.equal(submit.status, 200, JSON.stringify(submit.body));
      const done = await pollUntil(
        () => client.get(`/v1/video/generations/${submit.body.task_id}`),
        (a) => ['SUCCESS', 'FAILURE'].includes(a.body.status),
      );
      assert.equal(done.body.status, 'SUCCESS', JSON.stringify(done.body));
      return submit.body.task_id as string;
    };
    const refund = (id: string, body: Record<string, unknown>) => svc.admin.post(`/admin/v1/tasks/${id}/refund`, body);

    it('refunds part of a charge once, naming its settle entry; a repeat is replayed, never more than settled', async () => {
      const start = 20 * TICKS_PER_SECOND;
      const key = await svc.account('refunded', { credits_usd_ticks: start });
      const [first, second] = [await succeeded(key), await succeeded(key)];
      const settle = (await svc.admin.get(`/admin/v1/ledger?task_id=${first}`)).body.data.find(
        (e: any) => e.kind === 'settle',
      );
      assert.equal(settle.amount_usd_ticks, FIVE_SECONDS);

      const partial = await refund(first, { amount_usd_ticks: 2 * TICKS_PER_SECOND, reason: 'late delivery' });
      assert.equal(partial.status, 200, JSON.stringify(partial.body));
      assert.deepEqual(
        [partial.body.entry.kind, partial.body.entry.amount_usd_ticks, partial.body.entry.refers_to],
        ['refund', 2 * TICKS_PER_SECOND, settle.id],
      );
      const afterRefund = start - 2 * FIVE_SECONDS + 2 * TICKS_PER_SECOND;
      assert.equal(partial.body.account.balance_usd_ticks, afterRefund);
      const again = await refund(first, { amount_usd_ticks: 2 * TICKS_PER_SECOND, reason: 'late delivery' });
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.equal(again.body.entry.id, partial.body.entry.id);
      assert.equal(again.body.account.balance_usd_ticks, afterRefund, 'a replay gives nothing back twice');
      const other = await refund(first, { amount_usd_ticks: TICKS_PER_SECOND, reason: 'more' });
      assert.deepEqual([other.status, other.body.error.code], [409, 'already_refunded']);

      const tooMuch = await refund(second, { amount_usd_ticks: FIVE_SECONDS + 1, reason: 'too much' });
      assert.deepEqual(
        [tooMuch.status, tooMuch.body.error.code, tooMuch.body.error.param],
        [400, 'invalid_amount', 'amount_usd_ticks'],
      );
      const whole = await refund(second, { reason: 'goodwill' });
      assert.equal(whole.body.entry.amount_usd_ticks, FIVE_SECONDS, 'no amount: all that was settled');
      assert.equal(whole.body.account.balance_usd_ticks, afterRefund + FIVE_SECONDS);

      const usage = (await api(svc.url, key).get('/v1/usage')).body.data;
      assert.deepEqual(
        usage.map((r: any) => [r.tasks, r.cost_in_usd_ticks, r.refunded_usd_ticks]),
        [[2, 2 * FIVE_SECONDS, 2 * TICKS_PER_SECOND + FIVE_SECONDS]],
      );
      const report = (await svc.admin.get('/admin/v1/usage?account=refunded')).body.data;
      assert.equal(report[0].margin_usd_ticks, 2 * FIVE_SECONDS - 2 * TICKS_PER_SECOND - FIVE_SECONDS);
      assert.deepEqual((await svc.verify()).problems, []);
    });

    it('a task that was not charged has nothing to refund; an unknown task is 404', async () => {
      const key = await svc.account('uncharged', { credits_usd_ticks: 100 * TICKS_PER_SECOND });
      const client = api(svc.url, key);
      const queued = await client.post('/v1/video/generations', { model: 'tiny-long', prompt: 'never done' });
      await client.post(`/v1/video/generations/${queued.body.task_id}/cancel`);
      const none = await refund(queued.body.task_id, { reason: 'nothing' });
      assert.deepEqual([none.status, none.body.error.code], [409, 'nothing_to_refund']);
      const missing = await refund('no-such-task', { reason: 'x' });
      assert.equal(missing.status, 404);
      assert.deepEqual((await svc.verify()).problems, []);
    });
  });
}
