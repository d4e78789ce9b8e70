import { it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { openSqlStores, type SqlStores } from '../../src/composition/open-sql-stores.ts';
import { TaskEvents } from '../../src/domain/task-events.ts';
import { createLogger } from '../../src/logging.ts';
import { createSafePost } from '../../src/security/create-safe-fetch.ts';
import { SecretBox } from '../../src/webhooks/secret-box.ts';
import { balanceLowOutbox } from '../../src/webhooks/balance-low-outbox.ts';
import { operatorWebhookSecret } from '../../src/webhooks/operator-webhook.ts';
import { createWebhookDispatcher } from '../../src/webhooks/webhook-dispatcher.ts';
import type { WebhookDelivery } from '../../src/webhooks/webhook-events.ts';
import { operatorEndpointId } from '../../src/webhooks/webhook-ids.ts';
import { forEachDatabase } from '../support/databases.ts';
import { startWebhookReceiver, type Received } from '../../../../test/e2e/support/webhook-receiver.ts';

// The operator's webhook shares the outbox and the dispatcher with every endpoint, but is signed
// with its own secret, has its own address rule, and is never switched off by its answers.
forEachDatabase('operator webhook deliveries', (database) => {
  let stores: SqlStores;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let answer: (request: Received) => number = () => 200;
  const secret = operatorWebhookSecret(randomBytes(32));
  const post = (allowPrivate: boolean) =>
    createSafePost({ allowPrivate, timeoutMs: 30_000, maxBytes: 1024, what: 'webhook' });
  const run = async (operator: { secret: string; post: ReturnType<typeof post> } | undefined, accountId: string) => {
    const dispatcher = createWebhookDispatcher({
      store: stores.webhooks,
      box: new SecretBox(randomBytes(32)),
      owner: `test-${Math.random()}`,
      clock: Date.now,
      logger: createLogger('silent'),
      post: post(true),
      operator,
      eventData: async () => undefined,
      eventBody: (id) => stores.eventLog.body(id),
      // A failed attempt is due again only after the test is over.
      schedule: { baseMs: 600_000, capMs: 600_000, maxAttempts: 3 },
      leaseMs: 120_000,
      pollMs: 20,
      concurrency: 1,
    });
    dispatcher.start();
    let delivery: WebhookDelivery | undefined;
    try {
      // Until its first attempt has ended: no longer pending, or pending again with the reason.
      for (let polls = 0; ; polls++) {
        [delivery] = await stores.webhooks.listDeliveries(operatorEndpointId(accountId), { limit: 10 });
        if (delivery && delivery.attempts > 0 && (delivery.status !== 'pending' || delivery.lastError !== null)) break;
        assert.ok(polls < 5000, `no attempt ended: ${JSON.stringify(delivery)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      await dispatcher.stop(0);
    }
    return delivery;
  };
  /** A metered account whose deduction takes its available balance from 20 under its threshold of 10. */
  const crossing = async () => {
    const { id } = await stores.accounts.ensureAccount(`operator-${Math.random()}`, null, Date.now());
    await stores.ledger.setPlan(id, { metered: true, balanceAlertUsdTicks: 10 }, Date.now());
    await stores.ledger.credit({ accountId: id, amountUsdTicks: 20, reason: 'grant' }, Date.now());
    await stores.ledger.credit({ accountId: id, amountUsdTicks: -15, reason: 'deduct' }, Date.now());
    return id;
  };

  before(async () => {
    receiver = await startWebhookReceiver((request) => answer(request));
    stores = await openSqlStores(database.location, {
      events: new TaskEvents(),
      logger: createLogger('silent'),
      balanceLow: balanceLowOutbox({ maxAttempts: 3, operatorUrl: receiver.url }),
    });
  });
  after(async () => {
    await receiver?.close();
    await stores?.close();
  });

  it("signs with the operator's secret; a 410 fails that delivery and leaves the receiver on", async () => {
    answer = () => 410;
    const accountId = await crossing();
    const delivery = await run({ secret, post: post(true) }, accountId);
    assert.deepEqual([delivery?.status, delivery?.lastStatusCode], ['failed', 410]);
    assert.equal((await stores.webhooks.endpointById(operatorEndpointId(accountId)))?.status, 'enabled');
    const sent = receiver.received.at(-1)!;
    const event = new Webhook(secret).verify(sent.body, sent.headers as Record<string, string>) as any;
    assert.deepEqual(
      [event.type, event.data.available_usd_ticks, event.data.threshold_usd_ticks],
      ['account.balance_low', 5, 10],
    );
    // The account never sees the operator's endpoint among its own.
    assert.deepEqual(await stores.webhooks.listEndpoints(accountId), []);
    const id = operatorEndpointId(accountId);
    assert.equal(await stores.webhooks.getEndpoint(accountId, id), undefined);
    // Nor can it switch, rotate or delete it by guessing its id.
    const off = { enabled: false, by: 'account', reason: 'x' } as const;
    assert.equal(await stores.webhooks.switchEndpoint(accountId, id, off), undefined);
    assert.equal(await stores.webhooks.rotateSecret(accountId, id, 'sealed', Date.now()), undefined);
    assert.equal(await stores.webhooks.deleteEndpoint(accountId, id, Date.now()), false);
    assert.equal((await stores.webhooks.endpointById(id))?.status, 'enabled');
  });

  it('refuses a private address unless the operator allows one', async () => {
    answer = () => 200;
    const before = receiver.received.length;
    const delivery = await run({ secret, post: post(false) }, await crossing());
    assert.equal(delivery?.status, 'pending', 'retried later');
    assert.match(delivery?.lastError ?? '', /not publicly routable/);
    assert.equal(receiver.received.length, before, 'nothing was sent to loopback');
  });

  it("cancels the operator's deliveries on a dispatcher without the operator's configuration", async () => {
    const delivery = await run(undefined, await crossing());
    assert.deepEqual([delivery?.status, delivery?.lastError], ['canceled', 'The operator webhook is not configured.']);
  });
});
