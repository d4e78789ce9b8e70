import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { startTestService, type TestService } from './support/service.ts';
import { api, pollUntil, type Api } from './support/http.ts';
import { startWebhookReceiver, type Received } from './support/webhook-receiver.ts';

type Receiver = Awaited<ReturnType<typeof startWebhookReceiver>>;

// A per-request webhook (`webhook_url`, or its aliases `callback_url` and fal's `fal_webhook`) on
// a submit of either family gets that task's events and no others, signed with the account's
// callback secret: verified here with the standardwebhooks package, as any receiver would.
describe('per-request webhooks', () => {
  let svc: TestService;
  let client: Api;
  const receivers: Receiver[] = [];
  const receiver = async () => {
    const r = await startWebhookReceiver();
    receivers.push(r);
    return r;
  };
  const answered = (r: Receiver) =>
    pollUntil(
      async () => ({ status: 200, headers: new Headers(), body: r.received }),
      (a) => a.body.length > 0 && a.body.every((x: Received) => x.answered !== undefined),
    );

  before(async () => {
    svc = await startTestService();
    client = api(svc.url, await svc.createKey('callbacks'));
  });
  after(async () => {
    await svc.close();
    for (const r of receivers) await r.close();
  });

  it("sends each task's events to its own URL only, signed with the account's callback secret", async () => {
    const [a, b, account] = [await receiver(), await receiver(), await receiver()];
    const endpoint = (await client.post('/v1/webhooks', { url: account.url })).body;
    const secret = (await client.get('/v1/webhooks/default/secret')).body.key;
    assert.match(secret, /^whsec_/);

    const first = await client.post('/v1/videos/generations', {
      model: 'grok-imagine-video',
      prompt: 'a kite',
      duration: 1,
      webhook_url: a.url,
    });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const second = await client.post('/v1/video/generations', {
      model: 'video-v1-15s',
      prompt: 'a harbour',
      fal_webhook: b.url,
    });
    assert.equal(second.status, 200, JSON.stringify(second.body));
    await client.post(`/v1/videos/${second.body.task_id}/cancel`);
    const plain = (await client.post('/v1/video/generations', { model: 'video-v1-15s', prompt: 'no callback' })).body
      .task_id;
    await client.post(`/v1/videos/${plain}/cancel`);

    await pollUntil(
      () => client.get(`/v1/webhooks/${endpoint.id}/deliveries?limit=100`),
      (x) => x.body.data.length === 3 && x.body.data.every((d: any) => d.status === 'delivered'),
    );
    await answered(a);
    await answered(b);
    const verify = (r: Received) => new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as any;
    assert.deepEqual(
      a.received.map((r) => [verify(r).type, verify(r).data.id]),
      [['video.completed', first.body.request_id]],
    );
    assert.deepEqual(
      b.received.map((r) => [verify(r).type, verify(r).data.id]),
      [['video.canceled', second.body.task_id]],
    );
    // The account's endpoint gets all three events, with the same event ids as the callbacks.
    const ids = new Set(account.received.map((r) => r.headers['webhook-id']));
    assert.ok(ids.has(a.received[0].headers['webhook-id'] as string));
    assert.ok(ids.has(b.received[0].headers['webhook-id'] as string));
    assert.equal(ids.size, 3);
    assert.throws(() => new Webhook(endpoint.secret).verify(a.received[0].body, a.received[0].headers as never));
    // Callbacks are not endpoints of the account.
    assert.deepEqual(
      (await client.get('/v1/webhooks')).body.data.map((e: any) => e.id),
      [endpoint.id],
    );
    const other = api(svc.url, await svc.createKey('callbacks-other'));
    assert.notEqual((await other.get('/v1/webhooks/default/secret')).body.key, secret, 'one secret per account');
  });

  it('refuses two names for the one field, naming the second', async () => {
    const both = await client.post('/v1/video/generations', {
      model: 'video-v1-5s',
      prompt: 'p',
      webhook_url: 'https://example.com/a',
      callback_url: 'https://example.com/b',
    });
    assert.deepEqual([both.status, both.body.error.param], [400, 'callback_url']);
    const ftp = await client.post('/v1/video/generations', {
      model: 'video-v1-5s',
      prompt: 'p',
      callback_url: 'ftp://example.com/a',
    });
    assert.deepEqual(
      [ftp.status, ftp.body.error.code, ftp.body.error.param],
      [400, 'invalid_webhook_url', 'callback_url'],
    );
  });
});

describe('per-request webhooks on private addresses', () => {
  let svc: TestService;
  let client: Api;
  before(async () => {
    svc = await startTestService({ VIDGEN_ALLOW_PRIVATE_URLS: '0' });
    client = api(svc.url, await svc.createKey('private-callbacks'));
  });
  after(() => svc.close());

  it('are refused at submit with the field named as sent, and nothing is written', async () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['/v1/videos/generations', { model: 'grok-imagine-video', prompt: 'p', duration: 1 }, 'webhook_url'],
      ['/v1/video/generations', { model: 'video-v1-5s', prompt: 'p' }, 'callback_url'],
      ['/v1/video/generations', { model: 'video-v1-5s', prompt: 'p' }, 'fal_webhook'],
    ];
    for (const [path, body, field] of cases) {
      for (const url of ['http://127.0.0.1:9/hook', 'http://169.254.169.254/latest', 'http://localhost:9/x']) {
        const refused = await client.post(path, { ...body, [field]: url });
        assert.equal(refused.status, 400, `${field} ${url}`);
        assert.equal(refused.body.error.code, 'webhook_url_forbidden');
        assert.equal(refused.body.error.param, field);
        assert.match(refused.body.error.message, new RegExp(`\`${field}\``));
      }
    }
    assert.deepEqual((await client.get('/v1/videos')).body.data, []);
    assert.deepEqual((await client.get('/v1/video/generations')).body.data, []);
    assert.deepEqual((await client.get('/v1/events')).body.data, []);
  });
});
