import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { verifyWebhook, VidgenClient } from '../../packages/client/src/index.ts';
import { api, pollUntil, type Api } from './support/http.ts';
import { startEconomicsService, type EconomicsService } from './support/economics.ts';
import { startWebhookReceiver } from './support/webhook-receiver.ts';
import { WEBHOOK_EVENT_TYPES } from '../../packages/server/src/webhooks/webhook-events.ts';

type Receiver = Awaited<ReturnType<typeof startWebhookReceiver>>;

// Webhook endpoints for their account and for the operator: a disabled endpoint is
// enabled again and really receives the next event; the admin API lists every account's
// endpoints with their deliveries, never a secret, and its disable is one the account cannot undo.
describe('webhook endpoints, switched on and off by their account and by the operator', () => {
  let svc: EconomicsService;
  let owner: Api;
  let ownerKey: string;
  let stranger: Api;
  const receivers: Receiver[] = [];
  const receiver = async (answer?: Parameters<typeof startWebhookReceiver>[0]) => {
    const r = await startWebhookReceiver(answer);
    receivers.push(r);
    return r;
  };
  const finish = async (client: Api) => {
    const id = (await client.post('/v1/video/generations', { model: 'tiny-1s', prompt: 'a lighthouse' })).body
      .task_id as string;
    await pollUntil(
      () => client.get(`/v1/video/generations/${id}`),
      (a) => a.body.status === 'SUCCESS',
    );
    return id;
  };

  before(async () => {
    svc = await startEconomicsService(undefined, {
      VIDGEN_WEBHOOK_RETRY_BASE_MS: '50',
      VIDGEN_WEBHOOK_RETRY_CAP_MS: '200',
      VIDGEN_WEBHOOK_MAX_ATTEMPTS: '2',
      VIDGEN_WEBHOOK_DISABLE_AFTER_SECONDS: '1',
    });
    ownerKey = await svc.account('hooked');
    owner = api(svc.url, ownerKey);
    stranger = api(svc.url, await svc.account('stranger'));
  });
  after(async () => {
    await svc?.close();
    for (const r of receivers) await r.close();
  });

  it('an endpoint disabled by a 410 is enabled again by its account and receives the next event, not those from while it was off', async () => {
    let gone = true;
    const inbox = await receiver(() => (gone ? 410 : 200));
    const endpoint = (await owner.post('/v1/webhooks', { url: inbox.url, events: ['video.completed'] })).body;
    await owner.post(`/v1/webhooks/${endpoint.id}/test`);
    const disabled = await pollUntil(
      () => owner.get(`/v1/webhooks/${endpoint.id}`),
      (e) => e.body.status === 'disabled',
    );
    assert.deepEqual(
      [disabled.body.disabled_by, disabled.body.disabled_reason],
      ['server', 'The endpoint answered 410 Gone.'],
    );

    const whileOff = await finish(owner);
    gone = false;
    const client = new VidgenClient({ baseURL: svc.url, apiKey: ownerKey });
    const enabled = await client.webhooks.update(endpoint.id, { enabled: true });
    assert.deepEqual([enabled.status, enabled.disabled_by, enabled.disabled_reason], ['enabled', null, null]);
    const next = await finish(owner);
    await pollUntil(
      () => owner.get(`/v1/webhooks/${endpoint.id}/deliveries`),
      (a) => a.body.data.some((d: any) => d.task_id === next && d.status === 'delivered'),
    );
    const events = await Promise.all(
      inbox.received.slice(1).map((r) => verifyWebhook<any>(r.body, r.headers, endpoint.secret)),
    );
    assert.deepEqual(
      events.map((e) => [e.type, e.data.id]),
      [['video.completed', next]],
      `nothing for ${whileOff}, sent while the endpoint was off`,
    );
    const test = await owner.post(`/v1/webhooks/${endpoint.id}/test`);
    assert.equal(test.status, 200, 'test and retry work again');
  });

  it("lists every account's endpoints for the operator, with account, state, reason and delivery counts, never a secret", async () => {
    const inbox = await receiver();
    const mine = (await owner.post('/v1/webhooks', { url: inbox.url })).body;
    const theirs = (await stranger.post('/v1/webhooks', { url: inbox.url, events: ['video.failed'] })).body;
    await owner.post(`/v1/webhooks/${mine.id}/test`);
    await pollUntil(
      () => owner.get(`/v1/webhooks/${mine.id}/deliveries`),
      (a) => a.body.data[0]?.status === 'delivered',
    );

    const all = await svc.admin.get('/admin/v1/webhooks?limit=100');
    assert.equal(all.status, 200);
    assert.equal(all.body.has_more, false);
    // A page at a time, the same endpoints in the same order.
    const paged: string[] = [];
    for (let after = ''; ; ) {
      const page = await svc.admin.get(`/admin/v1/webhooks?limit=1${after ? `&after=${after}` : ''}`);
      paged.push(...page.body.data.map((e: { id: string }) => e.id));
      if (!page.body.has_more) break;
      after = page.body.last_id;
    }
    assert.deepEqual(
      paged,
      all.body.data.map((e: { id: string }) => e.id),
    );
    const row = all.body.data.find((e: any) => e.id === mine.id);
    assert.deepEqual(
      [row.account, row.url, row.status, row.disabled_by, row.events.length, row.deliveries],
      // Subscribed to every event by default.
      [
        'hooked',
        inbox.url,
        'enabled',
        null,
        WEBHOOK_EVENT_TYPES.length,
        { pending: 0, delivered: 1, failed: 0, canceled: 0 },
      ],
    );
    assert.ok(all.body.data.some((e: any) => e.id === theirs.id && e.account === 'stranger'));
    const text = JSON.stringify(all.body);
    assert.equal(text.includes('whsec_') || text.includes('"secret"'), false, 'never a secret');

    const deliveries = await svc.admin.get(`/admin/v1/webhooks/${mine.id}/deliveries?limit=5`);
    assert.deepEqual(
      deliveries.body.data.map((d: any) => [d.event_type, d.status, d.last_status_code]),
      [['webhook.test', 'delivered', 200]],
    );
    assert.equal(
      (await svc.admin.get(`/admin/v1/webhooks/${mine.id}/deliveries?limit=0`)).body.error.code,
      'invalid_limit',
    );
    assert.equal((await svc.admin.get('/admin/v1/webhooks/wh_nope/deliveries')).body.error.code, 'webhook_not_found');

    const one = await svc.admin.get('/admin/v1/webhooks?account=stranger');
    assert.deepEqual(
      one.body.data.map((e: any) => e.id),
      [theirs.id],
    );
    const unknown = await svc.admin.get('/admin/v1/webhooks?account=nobody');
    assert.deepEqual(
      [unknown.status, unknown.body.error.code, unknown.body.error.param],
      [404, 'account_not_found', 'account'],
    );
    assert.equal((await owner.get('/admin/v1/webhooks')).status, 401, 'a tenant key is not the admin token');
  });

  it("an operator's disable stops deliveries and only the operator can undo it; another account's endpoint is 404; bad input changes nothing", async () => {
    const inbox = await receiver();
    const endpoint = (await owner.post('/v1/webhooks', { url: inbox.url })).body;
    const path = `/v1/webhooks/${endpoint.id}`;

    for (const body of [{}, { enabled: 'yes' }, { enabled: true, url: 'https://example.com' }, '[]']) {
      const bad = await owner.call('PATCH', path, body);
      assert.equal(bad.status, 400, JSON.stringify(body));
      assert.equal(typeof bad.body.error.code, 'string');
      assert.equal((await svc.admin.call('PATCH', `/admin/v1/webhooks/${endpoint.id}`, body)).status, 400);
    }
    assert.equal((await owner.get(path)).body.status, 'enabled', 'refused input changed nothing');
    const foreign = await stranger.call('PATCH', path, { enabled: false });
    assert.deepEqual([foreign.status, foreign.body.error.code], [404, 'webhook_not_found']);
    assert.equal((await owner.get(path)).body.status, 'enabled');

    const off = await svc.admin.call('PATCH', `/admin/v1/webhooks/${endpoint.id}`, { enabled: false });
    assert.deepEqual(
      [off.status, off.body.status, off.body.disabled_by, off.body.account],
      [200, 'disabled', 'operator', 'hooked'],
    );
    const refused = await owner.call('PATCH', path, { enabled: true });
    assert.deepEqual([refused.status, refused.body.error.code], [409, 'webhook_disabled_by_operator']);
    assert.equal((await owner.post(`${path}/test`)).body.error.code, 'webhook_disabled');
    await finish(owner);
    assert.equal(inbox.received.length, 0, 'nothing reaches an endpoint the operator disabled');

    const on = await svc.admin.call('PATCH', `/admin/v1/webhooks/${endpoint.id}`, { enabled: true });
    assert.deepEqual([on.body.status, on.body.disabled_by], ['enabled', null]);
    const byOwner = await owner.call('PATCH', path, { enabled: false });
    assert.deepEqual(
      [byOwner.body.status, byOwner.body.disabled_by, byOwner.body.disabled_reason],
      ['disabled', 'account', 'Disabled by the account.'],
    );
    assert.equal(
      (await owner.call('PATCH', path, { enabled: true })).body.status,
      'enabled',
      'an account undoes its own disable',
    );

    assert.equal(
      (await svc.admin.call('PATCH', '/admin/v1/webhooks/wh_nope', { enabled: true })).body.error.code,
      'webhook_not_found',
    );
    await owner.delete(path);
    assert.equal(
      (await svc.admin.call('PATCH', `/admin/v1/webhooks/${endpoint.id}`, { enabled: true })).status,
      404,
      'a deleted endpoint stays deleted',
    );
  });

  it('an endpoint that failed every delivery for VIDGEN_WEBHOOK_DISABLE_AFTER_SECONDS is disabled by the server; its account enables it again', async () => {
    let failing = true;
    const inbox = await receiver(() => (failing ? 500 : 200));
    const endpoint = (await owner.post('/v1/webhooks', { url: inbox.url })).body;
    const path = `/v1/webhooks/${endpoint.id}`;
    // Deliveries keep failing (two attempts each) until the first failure is older than the
    // setting; then the next one to fail for good disables the endpoint. Nothing here is timed.
    const deadline = Date.now() + 60_000;
    while ((await owner.get(path)).body.status === 'enabled') {
      assert.ok(Date.now() < deadline, 'the endpoint was never disabled');
      const test = (await owner.post(`${path}/test`)).body;
      if (!test.id) continue;
      await pollUntil(
        () => owner.get(`${path}/deliveries`),
        (a) => a.body.data.find((d: any) => d.id === test.id)?.status !== 'pending',
      );
    }
    const disabled = (await owner.get(path)).body;
    assert.deepEqual(
      [disabled.disabled_by, disabled.disabled_reason],
      ['server', 'Every delivery failed for 1 second or more.'],
    );
    const listed = (await svc.admin.get('/admin/v1/webhooks?account=hooked')).body.data.find(
      (e: any) => e.id === endpoint.id,
    );
    assert.ok(listed.deliveries.failed >= 2 && listed.deliveries.delivered === 0, JSON.stringify(listed.deliveries));

    failing = false;
    assert.equal((await owner.call('PATCH', path, { enabled: true })).body.status, 'enabled');
    const test = (await owner.post(`${path}/test`)).body;
    await pollUntil(
      () => owner.get(`${path}/deliveries`),
      (a) => a.body.data.find((d: any) => d.id === test.id)?.status === 'delivered',
    );
    assert.equal((await owner.get(path)).body.status, 'enabled');
  });
});
