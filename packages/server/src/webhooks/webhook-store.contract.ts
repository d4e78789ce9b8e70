import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { AccountStore } from '../store/account-store.ts';
import type { TaskStore } from '../store/task-store.ts';
import type { SqlWebhookStore } from './sql-webhook-store.ts';
import type { NewTask } from '../store/task-store.ts';
import { uuidv7 } from '../domain/ids.ts';

/**
 * The webhook store's contract, run on every database (SQLite, PostgreSQL). `stores` must be
 * opened with the webhook outbox among its effects, its `maxAttempts` 3.
 */
/** The stores the webhook store is used through, on one database. */
export interface WebhookContractStores {
  accounts: AccountStore;
  tasks: TaskStore;
  webhooks: SqlWebhookStore;
}

export function webhookStoreContract(open: () => WebhookContractStores) {
  let clock = Date.now();
  const setup = async (
    name: string,
    events: string[] = ['video.completed', 'video.failed', 'video.canceled', 'video.expired'],
  ) => {
    const stores = open();
    const account = await stores.accounts.ensureAccount(name, null, clock);
    const endpoint = await stores.webhooks.insertEndpoint({
      id: `wh_${uuidv7()}`,
      accountId: account.id,
      url: 'https://example.com/hook',
      events: events as never,
      secret: 'sealed',
      createdAt: clock,
    });
    const newTask = (): NewTask => ({
      id: uuidv7(clock),
      accountId: account.id,
      family: 'A',
      kind: 'generate',
      model: 'm',
      backend: `fx-${name}`,
      createdAt: clock++,
      params: { prompt: 'p', images: [], duration: 1, aspectRatio: '16:9', width: 320, height: 180, fps: 24 },
    });
    return { stores, account, endpoint, newTask };
  };
  // Deliveries are due from when the outbox wrote them (real time); claims run in the future of that.
  const T = Date.now() + 600_000;
  const claimAll = async (stores: WebhookContractStores, owner: string, now: number, endpointId: string) =>
    (await stores.webhooks.claimDue({ owner, now, leaseMs: 1000, limit: 100 })).filter(
      (c) => c.delivery.endpointId === endpointId,
    );

  it('a final transition writes one delivery per subscribed endpoint, in its transaction', async () => {
    const { stores, endpoint, newTask, account } = await setup('outbox', ['video.canceled']);
    const other = await stores.webhooks.insertEndpoint({
      id: `wh_${uuidv7()}`,
      accountId: account.id,
      url: 'https://example.com/b',
      events: ['video.completed'],
      secret: 's',
      createdAt: clock,
    });
    const task = await stores.tasks.insert(newTask());
    await stores.tasks.cancel(task.id, clock);
    const [delivery] = await stores.webhooks.listDeliveries(endpoint.id, { limit: 10 });
    assert.deepEqual(
      [delivery.eventType, delivery.taskId, delivery.status, delivery.attempts, delivery.maxAttempts],
      ['video.canceled', task.id, 'pending', 0, 3],
    );
    assert.deepEqual(
      await stores.webhooks.listDeliveries(other.id, { limit: 10 }),
      [],
      'not subscribed, nothing written',
    );
    assert.equal(await stores.tasks.cancel(task.id, clock), undefined);
    assert.equal(
      (await stores.webhooks.listDeliveries(endpoint.id, { limit: 10 })).length,
      1,
      'a refused change writes no event',
    );
  });

  it('claims are exclusive and fenced; a lapsed claim is taken again with the same event id', async () => {
    const { stores, endpoint, newTask } = await setup('fence', ['video.canceled']);
    await stores.tasks.cancel((await stores.tasks.insert(newTask())).id, clock);
    const claim = (owner: string, now: number) => claimAll(stores, owner, now, endpoint.id);
    const [first, ...more] = await Promise.all([claim('a', T), claim('b', T), claim('c', T)]).then((all) => all.flat());
    assert.equal(more.length, 0, 'one claimer wins');
    assert.equal(first.delivery.attempts, 1);
    assert.deepEqual(await claim('d', T + 500), [], 'held while the lease runs');
    const [again] = await claim('e', T + 1000);
    assert.equal(again.delivery.eventId, first.delivery.eventId);
    assert.equal(again.delivery.attempts, 2);
    // Other tests' deliveries are due too and may be claimed alongside: look for this one only.
    const holds = async (owner: string) => (await stores.webhooks.leasedBy(owner)).includes(first.delivery.id);
    assert.deepEqual(
      [await holds(first.lease.owner), await holds('e')],
      [false, true],
      'a retaken claim is held by its new owner only',
    );
    assert.equal(
      await stores.webhooks.endAttempt(first.lease, { status: 'delivered', statusCode: 200, now: clock }),
      false,
      'the zombie claim is refused',
    );
    assert.equal(
      await stores.webhooks.endAttempt(again.lease, {
        status: 'pending',
        statusCode: 500,
        error: 'HTTP 500',
        nextAttemptAt: T + 1005,
      }),
      true,
    );
    assert.equal(await holds('e'), false, 'an ended attempt no longer holds its claim');
    const [third] = await claim('f', T + 1005);
    assert.equal(
      await stores.webhooks.endAttempt(third.lease, { status: 'delivered', statusCode: 200, now: clock }),
      true,
    );
    const [done] = await stores.webhooks.listDeliveries(endpoint.id, { limit: 10 });
    assert.deepEqual([done.status, done.attempts, done.lastStatusCode, done.lastError], ['delivered', 3, 200, null]);
    const retried = await stores.webhooks.retryDelivery(endpoint.id, done.id, T + 2000);
    assert.deepEqual([retried?.status, retried?.maxAttempts], ['pending', 4]);
    assert.equal((await claim('g', T + 2000)).length, 1);
  });

  it('deleting or disabling an endpoint cancels its pending deliveries and stops new ones', async () => {
    const { stores, endpoint, newTask, account } = await setup('delete');
    await stores.tasks.cancel((await stores.tasks.insert(newTask())).id, clock);
    assert.equal(await stores.webhooks.deleteEndpoint(account.id, endpoint.id, clock), true);
    assert.equal(await stores.webhooks.deleteEndpoint(account.id, endpoint.id, clock), false);
    assert.deepEqual(
      (await stores.webhooks.listDeliveries(endpoint.id, { limit: 10 })).map((d) => d.status),
      ['canceled'],
    );
    await stores.tasks.cancel((await stores.tasks.insert(newTask())).id, clock);
    assert.equal((await stores.webhooks.listDeliveries(endpoint.id, { limit: 10 })).length, 1);
    assert.equal(await stores.webhooks.getEndpoint(account.id, endpoint.id), undefined);
    assert.equal((await stores.webhooks.endpointById(endpoint.id))?.status, 'disabled');
    const counts = await stores.webhooks.countByStatus();
    assert.ok((counts.canceled ?? 0) >= 1);
  });

  it('rotation keeps the previous secret until the overlap ends; listings are per account', async () => {
    const { stores, endpoint, account } = await setup('rotate');
    const rotated = await stores.webhooks.rotateSecret(account.id, endpoint.id, 'sealed-2', clock + 10);
    assert.deepEqual(
      [rotated?.secret, rotated?.previousSecret, rotated?.previousSecretUntil],
      ['sealed-2', 'sealed', clock + 10],
    );
    assert.equal(await stores.webhooks.rotateSecret('someone-else', endpoint.id, 'x', clock), undefined);
    assert.deepEqual(
      (await stores.webhooks.listEndpoints(account.id)).map((e) => e.id),
      [endpoint.id],
    );
    assert.ok((await stores.webhooks.listEndpoints()).some((e) => e.id === endpoint.id));
  });

  it('endpoints are listed a page at a time, oldest first, and a deleted endpoint still marks its place', async () => {
    const { stores, account, endpoint } = await setup('paging');
    // Two endpoints at the same millisecond: the id orders them.
    const more = [];
    for (const [i, id] of ['wh_b', 'wh_a', 'wh_c'].entries()) {
      more.push(
        await stores.webhooks.insertEndpoint({
          id: `${id}_${uuidv7()}`,
          accountId: account.id,
          url: 'https://example.com/hook',
          events: ['video.completed'],
          secret: 's',
          createdAt: clock + 1 + Math.min(i, 1),
        }),
      );
    }
    const ordered = [endpoint, ...more]
      .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1))
      .map((e) => e.id);
    const first = await stores.webhooks.listEndpoints(account.id, { limit: 2 });
    assert.deepEqual(
      first.map((e) => e.id),
      ordered.slice(0, 2),
    );
    await stores.webhooks.deleteEndpoint(account.id, ordered[1], clock);
    const rest = await stores.webhooks.listEndpoints(account.id, { limit: 10, after: ordered[1] });
    assert.deepEqual(
      rest.map((e) => e.id),
      ordered.slice(2),
    );
    assert.deepEqual(await stores.webhooks.listEndpoints(account.id, { limit: 10, after: 'wh_never' }), []);
  });

  it('an endpoint is switched off (pending deliveries canceled, by whom said) and on, in its account', async () => {
    const { stores, endpoint, newTask, account } = await setup('switch');
    await stores.tasks.cancel((await stores.tasks.insert(newTask())).id, clock);
    assert.deepEqual(Object.fromEntries(await stores.webhooks.deliveryCounts([endpoint.id])), {
      [endpoint.id]: { pending: 1, delivered: 0, failed: 0, canceled: 0 },
    });
    assert.equal(
      await stores.webhooks.switchEndpoint('someone-else', endpoint.id, { enabled: true, by: 'operator', now: clock }),
      undefined,
    );
    const off = await stores.webhooks.switchEndpoint(account.id, endpoint.id, {
      enabled: false,
      by: 'operator',
      reason: 'noisy',
    });
    assert.deepEqual([off?.status, off?.disabledBy, off?.disabledReason], ['disabled', 'operator', 'noisy']);
    assert.deepEqual(
      (await stores.webhooks.listDeliveries(endpoint.id, { limit: 10 })).map((d) => d.status),
      ['canceled'],
    );
    await stores.tasks.cancel((await stores.tasks.insert(newTask())).id, clock);
    assert.equal(
      (await stores.webhooks.listDeliveries(endpoint.id, { limit: 10 })).length,
      1,
      'nothing is written for a disabled endpoint',
    );
    assert.equal(
      await stores.webhooks.switchEndpoint(account.id, endpoint.id, { enabled: true, by: 'account', now: clock }),
      undefined,
      "an account's enable leaves the operator's disable",
    );
    const on = await stores.webhooks.switchEndpoint(account.id, endpoint.id, {
      enabled: true,
      by: 'operator',
      now: clock,
    });
    assert.deepEqual([on?.status, on?.disabledBy, on?.disabledReason], ['enabled', null, null]);
    await stores.tasks.cancel((await stores.tasks.insert(newTask())).id, clock);
    const counts = (await stores.webhooks.deliveryCounts([endpoint.id, 'wh_none'])).get(endpoint.id);
    assert.deepEqual(counts, { pending: 1, delivered: 0, failed: 0, canceled: 1 });
    assert.deepEqual((await stores.webhooks.deliveryCounts(['wh_none'])).get('wh_none'), {
      pending: 0,
      delivered: 0,
      failed: 0,
      canceled: 0,
    });
    await stores.webhooks.disableEndpoint(endpoint.id, 'The endpoint answered 410 Gone.');
    assert.equal((await stores.webhooks.getEndpoint(account.id, endpoint.id))?.disabledBy, 'server');
    assert.equal(
      (await stores.webhooks.switchEndpoint(account.id, endpoint.id, { enabled: true, by: 'account', now: clock }))
        ?.status,
      'enabled',
      "an account undoes the server's disable",
    );
    await stores.webhooks.deleteEndpoint(account.id, endpoint.id, clock);
    assert.equal(
      await stores.webhooks.switchEndpoint(account.id, endpoint.id, { enabled: true, by: 'operator', now: clock }),
      undefined,
      'a deleted endpoint stays deleted',
    );
  });

  it('says since when an endpoint has been failing: after its last success and its last enable', async () => {
    const { stores, endpoint, account } = await setup('failing');
    const at = (n: number) => T + 10_000 + n * 1000;
    const settle = async (createdAt: number, delivered: boolean) => {
      const id = `whd_${uuidv7()}`;
      await stores.webhooks.enqueue(
        [
          {
            id,
            eventId: `evt_${uuidv7()}`,
            endpointId: endpoint.id,
            accountId: account.id,
            eventType: 'webhook.test',
            taskId: null,
            createdAt,
            maxAttempts: 1,
          },
        ],
        createdAt,
      );
      const [claim] = (await claimAll(stores, 'failing', createdAt, endpoint.id)).filter((c) => c.delivery.id === id);
      await stores.webhooks.endAttempt(
        claim.lease,
        delivered
          ? { status: 'delivered', statusCode: 200, now: createdAt }
          : { status: 'failed', statusCode: 500, error: 'HTTP 500' },
      );
    };
    assert.equal(await stores.webhooks.failingSince(endpoint.id, 0), undefined);
    await settle(at(1), false);
    await settle(at(2), false);
    assert.equal(await stores.webhooks.failingSince(endpoint.id, 0), at(1));
    await settle(at(3), true);
    assert.equal(await stores.webhooks.failingSince(endpoint.id, 0), undefined, 'a success starts over');
    await settle(at(4), false);
    await settle(at(5), false);
    assert.equal(await stores.webhooks.failingSince(endpoint.id, 0), at(4));
    assert.equal(
      await stores.webhooks.failingSince(endpoint.id, at(5)),
      at(5),
      'failures before the last enable do not count',
    );
    const enabled = await stores.webhooks.switchEndpoint(account.id, endpoint.id, {
      enabled: true,
      by: 'operator',
      now: at(6),
    });
    assert.equal(enabled?.enabledAt, at(6));
  });
}
