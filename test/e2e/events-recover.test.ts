import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { verifyWebhook } from '../../packages/client/src/index.ts';
import { createPostgresDatabase, type TestDatabase } from '../../packages/server/test/support/databases.ts';
import { startTestService, type TestService } from './support/service.ts';
import { api, pollUntil, type Api } from './support/http.ts';
import { startWebhookReceiver, type Received } from './support/webhook-receiver.ts';

// Svix's recover-since: an endpoint disabled for a while, then enabled and recovered, receives
// exactly the events it missed (ended while it was disabled, or canceled by the disable), once;
// what it had already received is not sent again, and a second recovery queues nothing.
for (const name of ['SQLite', 'PostgreSQL'] as const) {
  const database: TestDatabase | string | undefined =
    name === 'PostgreSQL' ? await createPostgresDatabase() : undefined;
  describe(`webhook recovery (${name})`, { skip: typeof database === 'string' ? database : false }, () => {
    let svc: TestService;
    let client: Api;
    let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
    let failing = false;

    before(async () => {
      svc = await startTestService({
        VIDGEN_WEBHOOK_RETRY_BASE_MS: '100',
        VIDGEN_WEBHOOK_RETRY_CAP_MS: '200',
        VIDGEN_WEBHOOK_MAX_ATTEMPTS: '10000',
        ...(database ? { VIDGEN_DATABASE_URL: (database as TestDatabase).location } : {}),
      });
      client = api(svc.url, await svc.createKey('recover'));
      receiver = await startWebhookReceiver(() => (failing ? 500 : 200));
    });
    after(async () => {
      await svc?.close();
      await receiver?.close();
      if (database && typeof database !== 'string') await database.drop();
    });

    /** A task canceled at once: its `video.canceled` event is made in the cancel's transaction. */
    const canceledTask = async () => {
      const id = (await client.post('/v1/video/generations', { model: 'video-v1-15s', prompt: 'rain' })).body.task_id;
      assert.equal((await client.post(`/v1/videos/${id}/cancel`)).status, 200);
      return id as string;
    };
    const acknowledged = (all: Received[]) =>
      all.filter((r) => r.answered === 200).map((r) => JSON.parse(r.body).data.id as string);
    /** Waits for a condition on what the receiver answered (set after the request arrived, so polled). */
    const eventually = async (done: () => boolean) => {
      const deadline = Date.now() + 60_000;
      while (!done()) {
        if (Date.now() > deadline)
          throw new Error(`timed out; received ${JSON.stringify(acknowledged(receiver.received))}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const patch = (path: string, body: unknown) => client.call('PATCH', path, body);
    const settled = (endpointId: string) =>
      pollUntil(
        () => client.get(`/v1/webhooks/${endpointId}/deliveries?limit=100`),
        (a) => a.body.data.every((d: any) => d.status !== 'pending'),
      );

    it('an endpoint disabled for a while and recovered gets exactly what it missed, once', async () => {
      const endpoint = (await client.post('/v1/webhooks', { url: receiver.url, events: ['video.canceled'] })).body;
      const start = Math.floor(Date.now() / 1000);
      const t1 = await canceledTask();
      await eventually(() => acknowledged(receiver.received).includes(t1));

      failing = true;
      const t2 = await canceledTask();
      await receiver.until((all) => all.some((r) => JSON.parse(r.body).data.id === t2));
      // Disabling cancels t2's pending delivery; t3 and t4 end while it is disabled: never queued.
      await patch(`/v1/webhooks/${endpoint.id}`, { enabled: false });
      const t3 = await canceledTask();
      const t4 = await canceledTask();
      assert.equal(
        (await client.post(`/v1/webhooks/${endpoint.id}/recover`, { since: start })).body.error.code,
        'webhook_disabled',
      );
      failing = false;
      await patch(`/v1/webhooks/${endpoint.id}`, { enabled: true });
      const t5 = await canceledTask();
      await eventually(() => acknowledged(receiver.received).includes(t5));
      assert.deepEqual(acknowledged(receiver.received), [t1, t5], 'nothing of the disabled time was sent');

      const recovered = await client.post(`/v1/webhooks/${endpoint.id}/recover`, {
        since: new Date(start * 1000).toISOString(),
      });
      assert.deepEqual(recovered.body, { object: 'webhook_recovery', endpoint_id: endpoint.id, queued: 3 });
      await eventually(() => acknowledged(receiver.received).length === 5);
      await settled(endpoint.id);
      const again = await client.post(`/v1/webhooks/${endpoint.id}/recover`, { since: start });
      assert.equal(again.body.queued, 0, 'a second recovery queues nothing');

      // A test event is the barrier: once it is acknowledged, nothing of the recovery came after it.
      const barrier = (await client.post(`/v1/webhooks/${endpoint.id}/test`)).body;
      await eventually(() => receiver.received.some((r) => r.headers['webhook-id'] === barrier.event_id && r.answered));
      await settled(endpoint.id);
      const taskEvents = acknowledged(receiver.received).filter((id) => id !== endpoint.id);
      assert.deepEqual([...taskEvents].sort(), [t1, t2, t3, t4, t5].sort(), 'each event exactly once');
      for (const r of receiver.received) await verifyWebhook(r.body, r.headers, endpoint.secret);
      // The recovered events are those the event log lists, byte for byte as frozen.
      const listed = (await client.get('/v1/events?type=video.canceled&limit=100')).body.data;
      for (const r of receiver.received.filter((x) => x.answered === 200)) {
        const body = JSON.parse(r.body);
        if (body.type !== 'video.canceled') continue;
        assert.deepEqual(
          { ...body, object: 'event' },
          listed.find((e: any) => e.id === body.id),
        );
      }
    });

    it('refuses a bad range, naming the field, and another account sees 404', async () => {
      const endpoint = (await client.post('/v1/webhooks', { url: receiver.url })).body;
      const bad = await client.post(`/v1/webhooks/${endpoint.id}/recover`, { since: 'last tuesday' });
      assert.deepEqual([bad.status, bad.body.error.param], [400, 'since']);
      const backwards = await client.post(`/v1/webhooks/${endpoint.id}/recover`, { since: 200, until: 100 });
      assert.deepEqual([backwards.status, backwards.body.error.param], [400, 'until']);
      const other = api(svc.url, await svc.createKey('another'));
      const foreign = await other.post(`/v1/webhooks/${endpoint.id}/recover`, { since: 0 });
      assert.deepEqual([foreign.status, foreign.body.error.code], [404, 'webhook_not_found']);
    });
  });
}
