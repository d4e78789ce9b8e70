import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { openSqlStores, type SqlStores } from '../../src/composition/open-sql-stores.ts';
import { TaskEvents } from '../../src/domain/task-events.ts';
import { createLogger } from '../../src/logging.ts';
import { createSafePost } from '../../src/security/create-safe-fetch.ts';
import { SecretBox } from '../../src/webhooks/secret-box.ts';
import { WebhookService } from '../../src/webhooks/webhook-service.ts';
import { createWebhookDispatcher } from '../../src/webhooks/webhook-dispatcher.ts';
import type { WebhookDelivery } from '../../src/webhooks/webhook-events.ts';
import { createSqliteDatabase, type TestDatabase } from '../support/databases.ts';
import { startWebhookReceiver, type Received } from '../../../../test/e2e/support/webhook-receiver.ts';

// A stopped dispatcher leaves no delivery claimed in its name (invariant 8, and the leak check):
// an attempt in flight finishes within the stop's grace, or is handed back due at once, so the
// next process sends it without waiting for the claim to lapse or for a retry delay.
describe('webhook dispatcher stop', () => {
  let db: TestDatabase;
  let stores: SqlStores;
  let hooks: WebhookService;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let answer: (request: Received) => number | Promise<number> = () => 200;
  const box = new SecretBox(randomBytes(32));
  // Long enough that only a hand-back, never the POST's time limit or a lapsed claim, can end an attempt in these tests.
  const dispatcher = (owner: string) =>
    createWebhookDispatcher({
      store: stores.webhooks,
      box,
      owner,
      clock: Date.now,
      logger: createLogger('silent'),
      post: createSafePost({ allowPrivate: true, timeoutMs: 60_000, maxBytes: 1024, what: 'webhook' }),
      eventData: async () => undefined,
      schedule: { baseMs: 60_000, capMs: 60_000, maxAttempts: 3 },
      leaseMs: 120_000,
      pollMs: 20,
      concurrency: 2,
    });
  const testDelivery = async () => {
    const { id: accountId } = await stores.accounts.ensureAccount(`hooks-${Math.random()}`, null, Date.now());
    const { endpoint } = await hooks.register(accountId, { url: receiver.url });
    return hooks.sendTest(accountId, endpoint.id);
  };

  before(async () => {
    db = await createSqliteDatabase();
    stores = await openSqlStores(db.location, { events: new TaskEvents(), logger: createLogger('silent') });
    hooks = new WebhookService({
      store: stores.webhooks,
      box,
      allowPrivateUrls: true,
      maxAttempts: 3,
      clock: Date.now,
    });
    receiver = await startWebhookReceiver((request) => answer(request));
  });
  after(async () => {
    await receiver.close();
    await stores?.close();
    await db?.drop();
  });

  it('hands an attempt still in flight back, due at once, and the next dispatcher sends it again', async () => {
    const delivery = await testDelivery();
    answer = () => new Promise<number>(() => undefined);
    const first = dispatcher('first');
    first.start();
    await receiver.until((all) => all.length === 1);
    await first.stop(0);
    const handedBack = await stores.webhooks.getDelivery(delivery.endpointId, delivery.id);
    assert.equal(handedBack?.status, 'pending');
    assert.ok((handedBack?.nextAttemptAt ?? Infinity) <= Date.now(), 'due again at once, not after a retry delay');
    assert.match(handedBack?.lastError ?? '', /shut down/);
    assert.deepEqual(await stores.webhooks.leasedBy('first'), []);

    answer = () => 200;
    const second = dispatcher('second');
    second.start();
    let delivered: WebhookDelivery | undefined = handedBack;
    // Stopping before the answer is read would (rightly) hand it back again.
    for (let polls = 0; delivered?.status !== 'delivered'; polls++) {
      assert.ok(polls < 1000, `not delivered again: ${JSON.stringify(delivered)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      delivered = await stores.webhooks.getDelivery(delivery.endpointId, delivery.id);
    }
    await second.stop(0);
    assert.equal(delivered.attempts, 2);
    assert.equal(
      receiver.received[1].headers['webhook-id'],
      receiver.received[0].headers['webhook-id'],
      'the same event, at least once',
    );
  });

  it('lets an attempt in flight finish within the grace', async () => {
    const delivery = await testDelivery();
    const before = receiver.received.length;
    let release: (status: number) => void = () => undefined;
    answer = () => new Promise<number>((resolve) => (release = resolve));
    const only = dispatcher('graceful');
    only.start();
    await receiver.until((all) => all.length === before + 1);
    const stopping = only.stop(60_000);
    setTimeout(() => release(200), 100);
    await stopping;
    const delivered = await stores.webhooks.getDelivery(delivery.endpointId, delivery.id);
    assert.deepEqual([delivered?.status, delivered?.attempts], ['delivered', 1]);
    assert.deepEqual(await stores.webhooks.leasedBy('graceful'), []);
  });
});
