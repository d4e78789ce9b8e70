import { it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openSqlStores, type SqlStores } from '../../src/composition/open-sql-stores.ts';
import { webhookOutbox } from '../../src/webhooks/webhook-outbox.ts';
import { callbackEndpointId } from '../../src/webhooks/webhook-ids.ts';
import { TaskEvents } from '../../src/domain/task-events.ts';
import { uuidv7 } from '../../src/domain/ids.ts';
import { createLogger } from '../../src/logging.ts';
import type { NewTask } from '../../src/store/task-store.ts';
import { forEachDatabase } from '../support/databases.ts';

// The event log on every database: each final change records its event with a frozen body (with
// or without endpoints), recoveries running at once queue each missed event once, the sweep
// removes only old events, and a per-request callback gets its own task's events alone.
forEachDatabase('event log', (database) => {
  let stores: SqlStores;
  let clock = Date.now();
  const render = (task: { id: string; status: string }) => ({ id: task.id, status: task.status });
  before(async () => {
    const effects = [
      webhookOutbox({ maxAttempts: 3, clock: () => clock, render, callbackSecret: () => 'sealed-callback' }),
    ];
    stores = await openSqlStores(database.location, {
      events: new TaskEvents(),
      logger: createLogger('silent'),
      effects,
    });
  });
  after(async () => {
    await stores?.close();
  });
  const account = async (label: string) => (await stores.accounts.ensureAccount(label, null, clock)).id;
  const canceledTask = async (accountId: string, callbackUrl?: string) => {
    const task: NewTask = {
      id: uuidv7(clock),
      accountId,
      family: 'B',
      kind: 'generate',
      model: 'm',
      backend: 'b',
      createdAt: clock++,
      params: {
        prompt: 'p',
        images: [],
        duration: 1,
        aspectRatio: '16:9',
        width: 320,
        height: 180,
        fps: 24,
        ...(callbackUrl ? { callbackUrl } : {}),
      },
    };
    await stores.tasks.insert(task);
    await stores.tasks.cancel(task.id, clock++);
    return task.id;
  };
  const endpoint = (accountId: string) =>
    stores.webhooks.insertEndpoint({
      id: `wh_${uuidv7()}`,
      accountId,
      url: 'https://example.com/hook',
      events: ['video.canceled'],
      secret: 'sealed',
      createdAt: clock,
    });

  it('records a final change with its body frozen when an endpoint exists, even disabled; else nothing', async () => {
    const quiet = await account('no-endpoints');
    await canceledTask(quiet);
    assert.deepEqual(await stores.eventLog.list(quiet, { limit: 10 }), [], 'nobody listens: no event');
    const accountId = await account('disabled-endpoint');
    const hook = await endpoint(accountId);
    await stores.webhooks.switchEndpoint(accountId, hook.id, { enabled: false, by: 'account', reason: 'off' });
    const id = await canceledTask(accountId);
    const [event] = await stores.eventLog.list(accountId, { limit: 10 });
    assert.deepEqual([event.type, event.taskId], ['video.canceled', id]);
    const body = JSON.parse(event.body);
    assert.deepEqual(body, {
      id: event.id,
      type: 'video.canceled',
      created_at: Math.floor(event.createdAt / 1000),
      data: { id, status: 'canceled' },
    });
    assert.equal(await stores.eventLog.body(event.id), event.body);
    assert.deepEqual(await stores.webhooks.listDeliveries(hook.id, { limit: 10 }), [], 'disabled: not queued');
  });

  it('two recoveries at once queue each missed event once', async () => {
    const accountId = await account('recover-race');
    const hook = await endpoint(accountId);
    await stores.webhooks.switchEndpoint(accountId, hook.id, { enabled: false, by: 'account', reason: 'off' });
    const missed = [await canceledTask(accountId), await canceledTask(accountId), await canceledTask(accountId)];
    await stores.webhooks.switchEndpoint(accountId, hook.id, { enabled: true, by: 'account', now: clock });
    const recovery = { endpointId: hook.id, accountId, types: hook.events, since: 0, maxAttempts: 3, now: clock };
    const queued = await Promise.all([stores.eventLog.recover(recovery), stores.eventLog.recover(recovery)]);
    assert.equal(queued[0] + queued[1], 3);
    const deliveries = await stores.webhooks.listDeliveries(hook.id, { limit: 10 });
    assert.deepEqual(deliveries.map((d) => d.taskId).sort(), [...missed].sort());
    assert.equal(await stores.eventLog.recover(recovery), 0, 'pending ones are not queued again');
    const until = { ...recovery, since: 0, until: 1 };
    assert.equal(await stores.eventLog.recover(until), 0, 'nothing before the range');
  });

  it('the sweep removes events older than the cut-off only', async () => {
    const accountId = await account('sweep');
    await endpoint(accountId);
    clock -= 10_000;
    await canceledTask(accountId);
    const cut = clock + 1;
    clock += 10_000;
    const kept = await canceledTask(accountId);
    assert.equal(await stores.eventLog.sweep(cut, 1000), 1);
    assert.deepEqual(
      (await stores.eventLog.list(accountId, { limit: 10 })).map((e) => e.taskId),
      [kept],
    );
  });

  it("a per-request callback gets its task's events alone and is not one of the account's endpoints", async () => {
    const accountId = await account('callbacks');
    const hook = await endpoint(accountId);
    const withCallback = await canceledTask(accountId, 'https://example.com/cb');
    const without = await canceledTask(accountId);
    const callback = await stores.webhooks.endpointById(callbackEndpointId(withCallback));
    assert.deepEqual([callback?.url, callback?.secret], ['https://example.com/cb', 'sealed-callback']);
    assert.deepEqual(
      (await stores.webhooks.listDeliveries(callbackEndpointId(withCallback), { limit: 10 })).map((d) => d.taskId),
      [withCallback],
    );
    assert.deepEqual(
      (await stores.webhooks.listDeliveries(hook.id, { limit: 10 })).map((d) => d.taskId).sort(),
      [withCallback, without].sort(),
    );
    assert.deepEqual(
      (await stores.webhooks.listEndpoints(accountId)).map((e) => e.id),
      [hook.id],
    );
    assert.equal(await stores.webhooks.getEndpoint(accountId, callbackEndpointId(withCallback)), undefined);
  });
});
