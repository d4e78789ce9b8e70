import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { verifyWebhook } from '../../packages/client/src/index.ts';
import { createPostgresDatabase, type TestDatabase } from '../../packages/server/test/support/databases.ts';
import { startTestService, type TestService } from './support/service.ts';
import { api, pollUntil, type Api } from './support/http.ts';
import { startWebhookReceiver } from './support/webhook-receiver.ts';

// Event bodies are frozen when the event happens (in the task's final transaction): a delivery
// retried after the result's retention sweep, an API key rotation and an endpoint secret rotation
// carries the same bytes under the same webhook-id, and GET /v1/events lists those bodies.
for (const name of ['SQLite', 'PostgreSQL'] as const) {
  const database: TestDatabase | string | undefined =
    name === 'PostgreSQL' ? await createPostgresDatabase() : undefined;
  describe(`frozen event bodies (${name})`, { skip: typeof database === 'string' ? database : false }, () => {
    let svc: TestService;
    let client: Api;
    let key: string;
    let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
    let failing = true;

    before(async () => {
      svc = await startTestService({
        VIDGEN_RETENTION_SECONDS: '2',
        VIDGEN_SWEEP_INTERVAL_SECONDS: '0.2',
        VIDGEN_WEBHOOK_RETRY_BASE_MS: '100',
        VIDGEN_WEBHOOK_RETRY_CAP_MS: '200',
        VIDGEN_WEBHOOK_MAX_ATTEMPTS: '10000',
        ...(database ? { VIDGEN_DATABASE_URL: (database as TestDatabase).location } : {}),
      });
      key = await svc.createKey('frozen');
      client = api(svc.url, key);
      receiver = await startWebhookReceiver(() => (failing ? 500 : 200));
    });
    after(async () => {
      await svc?.close();
      await receiver?.close();
      if (database && typeof database !== 'string') await database.drop();
    });

    it('a retry after retention, a key rotation and a secret rotation sends the same bytes', async () => {
      const endpoint = (await client.post('/v1/webhooks', { url: receiver.url })).body;
      const submitted = await client.post('/v1/videos/generations', {
        model: 'grok-imagine-video',
        prompt: 'a lighthouse',
        duration: 1,
      });
      assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
      const id = submitted.body.request_id;
      const completedOf = (r: { body: string }) => JSON.parse(r.body).type === 'video.completed';
      await receiver.until((all) => all.filter(completedOf).length >= 2);

      // While the receiver fails: the result expires, the account's key is replaced, the endpoint's secret rotated.
      await pollUntil(
        () => client.get(`/v1/videos/${id}`),
        (a) => a.body.status === 'expired',
        30_000,
      );
      const newKey = await svc.createKey('frozen');
      await svc.revokeKeyOf(key);
      client = api(svc.url, newKey);
      const rotated = (await client.post(`/v1/webhooks/${endpoint.id}/rotate-secret`)).body;
      const seen = receiver.received.filter(completedOf).length;
      await receiver.until((all) => all.filter(completedOf).length > seen);
      failing = false;
      await pollUntil(
        () => client.get(`/v1/webhooks/${endpoint.id}/deliveries?limit=100`),
        (a) => a.body.data.length === 2 && a.body.data.every((d: any) => d.status === 'delivered'),
        30_000,
      );

      const completed = receiver.received.filter(completedOf);
      assert.ok(completed.length >= 4, 'attempts before and after the sweep and the rotations');
      assert.equal(new Set(completed.map((r) => r.headers['webhook-id'])).size, 1, 'one webhook-id');
      assert.equal(new Set(completed.map((r) => r.body)).size, 1, 'byte-identical bodies');
      const event = await verifyWebhook<any>(completed.at(-1)!.body, completed.at(-1)!.headers, rotated.secret);
      await verifyWebhook(completed.at(-1)!.body, completed.at(-1)!.headers, endpoint.secret);
      assert.equal(event.data.object.status, 'done', 'the task as it was when the event happened');
      assert.equal(event.data.object.video.url, `${svc.url}/v1/videos/${id}/content`, 'a plain link, never signed');

      const expired = receiver.received.filter((r) => JSON.parse(r.body).type === 'video.expired');
      assert.equal(new Set(expired.map((r) => r.body)).size, 1);
      const expiredEvent = JSON.parse(expired[0].body);
      assert.notEqual(expiredEvent.id, event.id, 'the expiry is an event of its own');
      assert.equal(expiredEvent.data.object.status, 'expired');

      // The listing shows what was sent, newest first; `type` and `created_after` filter it.
      const listed = (await client.get('/v1/events')).body;
      assert.deepEqual(
        listed.data.map((e: any) => [e.id, e.object, e.type]),
        [
          [expiredEvent.id, 'event', 'video.expired'],
          [event.id, 'event', 'video.completed'],
        ],
      );
      assert.deepEqual(listed.data[1], { ...event, object: 'event' });
      const completedOnly = (await client.get('/v1/events?type=video.completed')).body.data;
      assert.deepEqual(
        completedOnly.map((e: any) => e.id),
        [event.id],
      );
      const none = (await client.get(`/v1/events?created_after=${expiredEvent.created_at}`)).body.data;
      assert.deepEqual(none, []);
      const since = (await client.get(`/v1/events?created_after=${expiredEvent.created_at - 1}`)).body.data;
      assert.deepEqual(
        since.map((e: any) => e.id),
        [expiredEvent.id],
      );
      const paged = (await client.get('/v1/events?limit=1')).body;
      assert.deepEqual([paged.has_more, paged.last_id], [true, expiredEvent.id]);
      const next = (await client.get(`/v1/events?limit=1&after=${paged.last_id}`)).body;
      assert.deepEqual([next.data[0].id, next.has_more], [event.id, false]);
      const bad = await client.get('/v1/events?type=video.exploded');
      assert.deepEqual([bad.status, bad.body.error.param], [400, 'type']);
      const badTime = await client.get('/v1/events?created_after=yesterday');
      assert.deepEqual([badTime.status, badTime.body.error.param], [400, 'created_after']);
      const other = api(svc.url, await svc.createKey('someone-else'));
      assert.deepEqual((await other.get('/v1/events')).body.data, [], "another account's events are not listed");
    });
  });
}
