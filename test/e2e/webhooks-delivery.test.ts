import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { verifyWebhook } from '../../packages/client/src/index.ts';
import { startTestService, type TestService } from './support/service.ts';
import { api, pollUntil, type Api } from './support/http.ts';
import { startImageServer } from './support/images.ts';
import { downloadAndProbe } from './support/video.ts';
import { startWebhookReceiver } from './support/webhook-receiver.ts';

type Receiver = Awaited<ReturnType<typeof startWebhookReceiver>>;

// Signed webhooks end to end: a receiver on loopback gets one verified event per finished task
// (both families), retries keep the webhook-id, rotation sends both signatures.
describe('webhook deliveries', () => {
  let svc: TestService;
  let client: Api;
  let key: string;
  let images: Awaited<ReturnType<typeof startImageServer>>;
  const receivers: Receiver[] = [];
  const receiver = async (answer?: Parameters<typeof startWebhookReceiver>[0]) => {
    const r = await startWebhookReceiver(answer);
    receivers.push(r);
    return r;
  };
  const register = async (url: string, events?: string[]) => {
    const created = await client.post('/v1/webhooks', { url, ...(events ? { events } : {}) });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    return created.body as { id: string; secret: string; events: string[] };
  };
  const deliveriesOf = async (id: string) =>
    (await client.get(`/v1/webhooks/${id}/deliveries?limit=100`)).body.data as any[];
  const allDelivered = (id: string, count: number) =>
    pollUntil(
      () => client.get(`/v1/webhooks/${id}/deliveries?limit=100`),
      (a) => a.body.data.length === count && a.body.data.every((d: any) => d.status === 'delivered'),
    );

  before(async () => {
    svc = await startTestService({ VIDGEN_WEBHOOK_RETRY_BASE_MS: '50', VIDGEN_WEBHOOK_RETRY_CAP_MS: '200' });
    key = await svc.createKey('hooks');
    client = api(svc.url, key);
    images = await startImageServer();
  });
  after(async () => {
    await svc.close();
    await images.close();
    for (const r of receivers) await r.close();
  });

  it('one verified event per finished task, of both families, and video.failed for an unreachable image', async () => {
    const inbox = await receiver();
    const endpoint = await register(inbox.url);
    assert.match(endpoint.secret, /^whsec_/);
    assert.deepEqual(endpoint.events, [
      'video.completed',
      'video.failed',
      'video.canceled',
      'video.expired',
      'account.balance_low',
      'batch.completed',
      'batch.failed',
      'batch.expired',
      'batch.cancelled',
    ]);
    const listed = await client.get('/v1/webhooks');
    assert.equal(
      listed.body.data.find((e: any) => e.id === endpoint.id).secret,
      undefined,
      'the secret is shown only once',
    );

    const a = (
      await client.post('/v1/videos/generations', {
        model: 'vx-imagine-video-1.5-720p',
        prompt: 'slow zoom',
        image: { url: `${images.url}/photo.png` },
        duration: 1,
      })
    ).body.request_id;
    const b = (await client.post('/v1/video/generations', { model: 'video-v1-5s', prompt: 'sunset over the ocean' }))
      .body.task_id;
    const broken = (
      await client.post('/v1/video/generations', { model: 'video-v1-5s', prompt: 'p', image: `${images.url}/gone.png` })
    ).body.task_id;
    await allDelivered(endpoint.id, 3);

    const events = await Promise.all(inbox.received.map((r) => verifyWebhook<any>(r.body, r.headers, endpoint.secret)));
    assert.equal(events.length, 3, 'exactly one delivery per task');
    const byTask = new Map(events.map((e) => [e.data.id, e]));
    assert.deepEqual(
      [byTask.get(a)?.type, byTask.get(b)?.type, byTask.get(broken)?.type],
      ['video.completed', 'video.completed', 'video.failed'],
    );
    for (const [i, r] of inbox.received.entries()) assert.equal(r.headers['webhook-id'], events[i].id);
    assert.match(events[0].id, /^evt_/);

    const eventA = byTask.get(a);
    assert.equal(eventA.data.family, 'A');
    assert.equal(eventA.data.object.request_id, a);
    assert.equal(eventA.data.object.status, 'done');
    // The body is frozen: its link is the content route's plain URL, fetched with the key, never a signed link.
    assert.equal(eventA.data.object.video.url, `${svc.url}/v1/videos/${a}/content`);
    const { probe } = await downloadAndProbe(eventA.data.object.video.url, { authorization: `Bearer ${key}` });
    assert.equal(probe.codec, 'h264');
    const eventB = byTask.get(b);
    assert.equal(eventB.data.family, 'B');
    assert.deepEqual(
      eventB.data.object,
      (await client.get(`/v1/video/generations/${b}`)).body,
      'the task exactly as its poll returns it',
    );
    assert.equal(byTask.get(broken).data.object.error.code, 'image_unreachable');
    await assert.rejects(
      verifyWebhook(inbox.received[0].body.replace('video', 'audio'), inbox.received[0].headers, endpoint.secret),
      /signature/,
    );

    const deleted = await client.delete(`/v1/webhooks/${endpoint.id}`);
    assert.deepEqual(deleted.body, { id: endpoint.id, object: 'webhook_endpoint', deleted: true });
    assert.equal((await client.get(`/v1/webhooks/${endpoint.id}/deliveries`)).body.error.code, 'webhook_not_found');
  });

  it('500 twice then 200: the same webhook-id three times, then nothing more', async () => {
    const flaky = await receiver((_r, i) => (i < 2 ? 500 : 200));
    const endpoint = await register(flaky.url, ['video.canceled']);
    const task = (await client.post('/v1/video/generations', { model: 'video-v1-15s', prompt: 'long night city' })).body
      .task_id;
    await client.post(`/v1/videos/${task}/cancel`);
    await allDelivered(endpoint.id, 1);
    const [delivery] = await deliveriesOf(endpoint.id);
    assert.equal(delivery.attempts, 3);
    assert.equal(delivery.last_status_code, 200);
    // A later event delivered after it is the barrier: nothing of the first one came after its 200.
    const test = (await client.post(`/v1/webhooks/${endpoint.id}/test`)).body;
    assert.equal(test.event_type, 'webhook.test');
    await allDelivered(endpoint.id, 2);
    const ids = flaky.received.map((r) => r.headers['webhook-id']);
    assert.deepEqual(ids, [delivery.event_id, delivery.event_id, delivery.event_id, test.event_id]);
    assert.deepEqual(
      flaky.received.map((r) => r.answered),
      [500, 500, 200, 200],
    );
    for (const r of flaky.received) await verifyWebhook(r.body, r.headers, endpoint.secret);
  });

  it('410 disables the endpoint; a delivery can be retried by hand with the same id', async () => {
    let gone = true;
    const inbox = await receiver(() => (gone ? 410 : 200));
    const endpoint = await register(inbox.url);
    const test = (await client.post(`/v1/webhooks/${endpoint.id}/test`)).body;
    await pollUntil(
      () => client.get(`/v1/webhooks/${endpoint.id}`),
      (e) => e.body.status === 'disabled',
    );
    const [failed] = await deliveriesOf(endpoint.id);
    assert.deepEqual([failed.status, failed.attempts, failed.last_status_code], ['failed', 1, 410]);
    assert.equal((await client.post(`/v1/webhooks/${endpoint.id}/test`)).body.error.code, 'webhook_disabled');

    gone = false;
    const other = await register(inbox.url, ['video.failed']);
    const retried = (await client.post(`/v1/webhooks/${other.id}/test`)).body;
    await allDelivered(other.id, 1);
    const again = await client.post(`/v1/webhooks/${other.id}/deliveries/${retried.id}/retry`);
    assert.equal(again.body.status, 'pending');
    await allDelivered(other.id, 1);
    assert.deepEqual(
      inbox.received.slice(-2).map((r) => r.headers['webhook-id']),
      [retried.event_id, retried.event_id],
    );
    assert.equal(test.event_id, inbox.received[0].headers['webhook-id']);
    const missing = await client.post(`/v1/webhooks/${other.id}/deliveries/whd_nope/retry`);
    assert.deepEqual([missing.status, missing.body.error.code], [404, 'webhook_delivery_not_found']);
  });

  it('after a rotation both secrets verify, for 24 hours', async () => {
    const inbox = await receiver();
    const endpoint = await register(inbox.url);
    const rotated = (await client.post(`/v1/webhooks/${endpoint.id}/rotate-secret`)).body;
    assert.notEqual(rotated.secret, endpoint.secret);
    assert.ok(rotated.previous_secret_expires_at - Date.now() / 1000 > 23.9 * 3600);
    await client.post(`/v1/webhooks/${endpoint.id}/test`);
    await allDelivered(endpoint.id, 1);
    const [delivered] = inbox.received;
    assert.equal(String(delivered.headers['webhook-signature']).split(' ').length, 2);
    await verifyWebhook(delivered.body, delivered.headers, endpoint.secret);
    await verifyWebhook(delivered.body, delivered.headers, rotated.secret);
  });

  it('refuses bad registrations, naming the field', async () => {
    const bad = await client.post('/v1/webhooks', { url: 'ftp://example.com/x' });
    assert.deepEqual([bad.status, bad.body.error.code, bad.body.error.param], [400, 'invalid_webhook_url', 'url']);
    const events = await client.post('/v1/webhooks', {
      url: 'http://127.0.0.1:9/x',
      events: ['video.completed', 'video.exploded'],
    });
    assert.deepEqual([events.status, events.body.error.param], [400, 'events[1]']);
    assert.equal((await client.get('/v1/webhooks/wh_nope')).body.error.code, 'webhook_not_found');
  });
});
