import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import {
  createPostgresDatabase,
  createSqliteDatabase,
  type TestDatabase,
} from '../../packages/server/test/support/databases.ts';
import { api, pollUntil, type Api } from './support/http.ts';
import { startEconomicsService, TICKS_PER_SECOND, type EconomicsService } from './support/economics.ts';
import { startWebhookReceiver, type Received } from './support/webhook-receiver.ts';

type Receiver = Awaited<ReturnType<typeof startWebhookReceiver>>;
const T = TICKS_PER_SECOND;
const LOW = 'account.balance_low';

/** Waits until the receiver has `n` requests and has answered every one (its answer is set after the arrival). */
const answered = (r: Receiver, n: number) =>
  pollUntil(
    async () => ({ status: 200, headers: new Headers(), body: r.received }),
    (a) => a.body.length >= n && a.body.every((x: Received) => x.answered !== undefined),
  );

// An account's balance alert: one `account.balance_low` per crossing of its threshold by the
// available balance (balance − held), to its own endpoint and to the operator's webhook, each
// verified with the standardwebhooks package as a receiver would.
for (const [name, create] of [
  ['SQLite', createSqliteDatabase],
  ['PostgreSQL', createPostgresDatabase],
] as const) {
  const created = await create();
  describe(`balance alerts (${name})`, { skip: typeof created === 'string' ? created : false }, () => {
    let db: TestDatabase;
    let svc: EconomicsService;
    let account: Receiver;
    let operator: Receiver;
    before(async () => {
      db = created as TestDatabase;
      account = await startWebhookReceiver();
      operator = await startWebhookReceiver();
      svc = await startEconomicsService(name === 'PostgreSQL' ? db.location : undefined, {
        VIDGEN_OPERATOR_WEBHOOK_URL: operator.url,
      });
    });
    after(async () => {
      await svc?.close();
      await account?.close();
      await operator?.close();
      await db?.drop();
    });

    /** Submits 1-second tasks (1 × 10⁹ ticks each), all at once, and waits until every one succeeded. */
    const runTasks = async (client: Api, n: number, label: string) => {
      const submits = await Promise.all(
        Array.from({ length: n }, (_, i) =>
          client.post('/v1/video/generations', { model: 'tiny-1s', prompt: `${label} ${i}` }),
        ),
      );
      for (const s of submits) assert.equal(s.status, 200, JSON.stringify(s.body));
      for (const s of submits)
        await pollUntil(
          () => client.get(`/v1/video/generations/${s.body.task_id}`),
          (a) => a.body.status === 'SUCCESS',
        );
    };
    const alertsLogged = async (client: Api) => (await client.get(`/v1/events?type=${LOW}&limit=100`)).body.data;
    const lows = (r: Receiver) => r.received.filter((x) => JSON.parse(x.body).type === LOW);

    it('one event per crossing, to the account and to the operator; nothing more until a top-up re-arms it', async () => {
      const key = await svc.account('alerted', { credits_usd_ticks: 10 * T, balance_alert_usd_ticks: 6 * T });
      const client = api(svc.url, key);
      const endpoint = (await client.post('/v1/webhooks', { url: account.url })).body;
      assert.ok(endpoint.events.includes(LOW), 'an endpoint subscribes to every event by default');
      const shown = (await svc.admin.get('/admin/v1/accounts/alerted')).body;
      assert.deepEqual([shown.balance_alert_usd_ticks, shown.balance_low_since], [6 * T, null]);
      const operatorHook = (await svc.admin.get('/admin/v1/operator-webhook')).body;
      assert.equal(operatorHook.url, operator.url);
      assert.match(operatorHook.secret, /^whsec_/);

      // One at a time, so the balances in the event are known: 10 → 6 available is not under 6.
      for (const i of [1, 2, 3, 4]) await runTasks(client, 1, `above ${i}`);
      assert.deepEqual(await alertsLogged(client), []);
      // The fifth hold takes it to 5: under the threshold.
      await runTasks(client, 1, 'crossing');
      assert.equal((await alertsLogged(client)).length, 1);
      const low = (await svc.admin.get('/admin/v1/accounts/alerted')).body;
      assert.ok(low.balance_low_since > 0, JSON.stringify(low));
      // Further tasks under it send nothing: the event log is written in each hold's transaction.
      await runTasks(client, 2, 'below');
      assert.equal((await alertsLogged(client)).length, 1);

      // Every delivery to the account's endpoint (7 task events, 1 alert) and the operator's one.
      await answered(account, 8);
      await answered(operator, 1);
      const [toAccount] = lows(account);
      assert.equal(lows(account).length, 1);
      assert.equal(operator.received.length, 1);
      const verified = (r: Received, secret: string) =>
        new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as any;
      const first = verified(toAccount, endpoint.secret);
      const firstOperator = verified(operator.received[0], operatorHook.secret);
      assert.deepEqual(firstOperator, first, 'the same frozen body');
      assert.equal(operator.received[0].headers['webhook-id'], toAccount.headers['webhook-id']);
      assert.deepEqual(first.data, {
        id: 'alerted',
        object: 'account_balance',
        balance_usd_ticks: 6 * T,
        held_usd_ticks: T,
        available_usd_ticks: 5 * T,
        threshold_usd_ticks: 6 * T,
      });
      assert.equal(first.type, LOW);
      assert.ok(Number.isInteger(first.created_at) && first.created_at < 1e11, 'Unix seconds');
      assert.throws(() =>
        new Webhook(endpoint.secret).verify(operator.received[0].body, operator.received[0].headers as never),
      );
      const toOperator = (await svc.admin.get('/admin/v1/operator-webhook/deliveries?account=alerted')).body.data;
      assert.deepEqual(
        toOperator.map((d: any) => [d.event_type, d.status]),
        [[LOW, 'delivered']],
      );

      // A top-up back over the threshold re-arms it (available 3 + 5 = 8)…
      const topUp = await svc.admin.post('/admin/v1/accounts/alerted/credits', {
        amount_usd_ticks: 5 * T,
        reason: 'top-up',
      });
      assert.equal(topUp.status, 200, JSON.stringify(topUp.body));
      assert.equal(topUp.body.account.balance_low_since, null);
      // …and the next crossing, by concurrent holds (8 → 4), sends exactly one more.
      await runTasks(client, 4, 'second crossing');
      assert.equal((await alertsLogged(client)).length, 2);
      await answered(account, 8 + 4 + 1);
      await answered(operator, 2);
      assert.equal(lows(account).length, 2);
      assert.equal(operator.received.length, 2);
      const second = verified(operator.received[1], operatorHook.secret);
      assert.deepEqual(
        [second.data.available_usd_ticks, second.data.threshold_usd_ticks],
        [5 * T, 6 * T],
        'the hold that crossed left 5',
      );
      assert.notEqual(second.id, first.id);
      assert.deepEqual(verified(lows(account)[1], endpoint.secret), second);
      assert.deepEqual((await svc.verify()).problems, []);
    });

    it('a deduction that crosses fires too; an account without a threshold never does', async () => {
      const key = await svc.account('deducted', { credits_usd_ticks: 10 * T });
      const client = api(svc.url, key);
      const set = await svc.admin.call('PATCH', '/admin/v1/accounts/deducted', { balance_alert_usd_ticks: 4 * T });
      assert.deepEqual([set.status, set.body.balance_alert_usd_ticks], [200, 4 * T]);
      const deduct = (amount: number) =>
        svc.admin.post('/admin/v1/accounts/deducted/credits', { amount_usd_ticks: -amount, reason: 'correction' });
      assert.equal((await deduct(6 * T)).status, 200);
      assert.deepEqual(await alertsLogged(client), [], 'at the threshold is not under it');
      assert.equal((await deduct(1)).status, 200);
      assert.equal((await alertsLogged(client)).length, 1);
      assert.equal((await deduct(1)).status, 200);
      assert.equal((await alertsLogged(client)).length, 1);
      // Removing the threshold: nothing is watched any more.
      await svc.admin.call('PATCH', '/admin/v1/accounts/deducted', { balance_alert_usd_ticks: null });
      await svc.admin.post('/admin/v1/accounts/deducted/credits', { amount_usd_ticks: 5 * T, reason: 'top-up' });
      assert.equal((await deduct(5 * T)).status, 200);
      assert.equal((await alertsLogged(client)).length, 1);
      const bad = await svc.admin.call('PATCH', '/admin/v1/accounts/deducted', { balance_alert_usd_ticks: 0 });
      assert.deepEqual([bad.status, bad.body.error.param], [400, 'balance_alert_usd_ticks']);
    });
  });
}
