import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from './support/service.ts';
import { api, pollUntil, type Api } from './support/http.ts';
import { startWebhookReceiver } from './support/webhook-receiver.ts';

// OpenRouter's shape on POST /v1/videos (docs/openai-videos.md): which creates it claims, and that a
// job answers in it everywhere, as `@openrouter/ai-sdk-provider` 3.1.0 reads it (its dist/index.js,
// `VideoGenerationPollResponseSchema`): `id`, `polling_url` and `status` strings, `error` a string or
// absent, `unsigned_urls` that work without a key, `usage.cost` in USD beside the exact ticks.
const AGENT = { 'user-agent': 'ai-sdk/openrouter/3.1.0 ai/7.0.173' };
const MODEL = 'grok-imagine-video-1.5';
const JOB = /^job-[0-9a-f]{32}$/;

/** Every field the provider's schema reads has the type it asks for; `error` is never null. */
function assertProviderShape(job: Record<string, unknown>): void {
  assert.match(String(job.id), JOB);
  assert.equal(job.polling_url, `/v1/videos/${job.id}`);
  assert.equal(typeof job.status, 'string');
  assert.ok(!('error' in job) || typeof job.error === 'string', `error: ${JSON.stringify(job.error)}`);
  if (job.unsigned_urls !== undefined) assert.ok(Array.isArray(job.unsigned_urls));
}

/** The `data:` of each event of a finished Server-Sent Events stream, parsed. */
async function streamed(url: string, key: string): Promise<Record<string, unknown>[]> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(res.status, 200);
  const text = await res.text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)));
}

describe("OpenRouter's shape: claims, polls, listings, streams and webhook events", () => {
  let svc: TestService;
  let key: string;
  let client: Api;

  before(async () => {
    svc = await startTestService();
    key = await svc.createKey('openrouter-shape');
    client = api(svc.url, key);
  });
  after(async () => {
    await svc?.close();
  });

  it('claims a create by its fields or its User-Agent; a plain create stays OpenAI', async () => {
    const byAgent = await client.post('/v1/videos', { model: MODEL, prompt: 'a kite' }, AGENT);
    assert.equal(byAgent.status, 200, JSON.stringify(byAgent.body));
    assertProviderShape(byAgent.body);
    assert.equal(byAgent.body.status, 'pending');
    const byField = await client.post('/v1/videos', { model: 'sora-2', prompt: 'a kite', duration: 4 });
    assert.equal(byField.status, 200, JSON.stringify(byField.body));
    assertProviderShape(byField.body);
    const openAi = await client.post('/v1/videos', { model: 'sora-2', prompt: 'a kite', seconds: '4' });
    assert.equal(openAi.status, 200, JSON.stringify(openAi.body));
    assert.match(openAi.body.id, /^video_/);
    // OpenAI's shape takes only its own models; OpenRouter's, a gateway, takes every one.
    const wrong = await client.post('/v1/videos', { model: MODEL, prompt: 'a kite' });
    assert.equal(wrong.status, 400, JSON.stringify(wrong.body));
    assert.equal(wrong.body.error.code, 'model_wrong_endpoint');
    // Claimed by its User-Agent, a body is checked as OpenRouter's.
    const bad = await client.post('/v1/videos', { model: MODEL, prompt: 'a kite', seed: 'x' }, AGENT);
    assert.equal(bad.status, 400, JSON.stringify(bad.body));
    assert.equal(bad.body.error.param, 'seed');
    for (const id of [byAgent.body.id, byField.body.id, openAi.body.id])
      await client.post(`/v1/videos/${id}/cancel`).catch(() => undefined);
  });

  it('polls, lists, streams and webhook events keep the shape; unsigned_urls work without a key', async () => {
    const hook = await startWebhookReceiver();
    try {
      const create = await client.post('/v1/videos', {
        model: MODEL,
        prompt: 'a lighthouse at dusk',
        duration: 1,
        aspect_ratio: '16:9',
        resolution: '480p',
        callback_url: hook.url,
      });
      assert.equal(create.status, 200, JSON.stringify(create.body));
      assertProviderShape(create.body);
      const id = create.body.id as string;
      const done = await pollUntil(
        () => client.get(`/v1/videos/${id}`),
        (a) => {
          assert.equal(a.status, 200, JSON.stringify(a.body));
          assertProviderShape(a.body);
          return a.body.status === 'completed';
        },
      );
      const job = done.body;
      assert.equal(job.size, '854x480');
      assert.equal(job.usage.cost, job.usage.cost_in_usd_ticks / 1e10);
      assert.ok(job.usage.cost_in_usd_ticks > 0);
      const [url] = job.unsigned_urls as string[];
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/v1\/videos\/[0-9a-f-]{36}\/content\?expires=/);
      const video = await fetch(url);
      assert.equal(video.status, 200);
      assert.equal(video.headers.get('content-type'), 'video/mp4');
      // The content route also takes the job's own id, with the key (OpenRouter's authenticated download).
      const byId = await fetch(`${svc.url}/v1/videos/${id}/content`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(byId.status, 200);
      assert.deepEqual(Buffer.from(await byId.arrayBuffer()), Buffer.from(await video.arrayBuffer()));

      const events = await streamed(`${svc.url}/v1/videos/${id}/events`, key);
      assert.ok(events.length > 0);
      for (const e of events) assertProviderShape(e);
      assert.equal(events.at(-1)?.status, 'completed');

      const listed = await client.get('/v1/videos', AGENT);
      assert.equal(listed.status, 200, JSON.stringify(listed.body));
      const entry = listed.body.data.find((e: { id: string }) => e.id === id);
      assert.ok(entry, 'the job is listed in its shape');
      assertProviderShape(entry);
      assert.equal(entry.unsigned_urls.length, 1);
      const page = await client.get(`/v1/videos?after=${listed.body.data[0].id}&limit=100`);
      assert.equal(page.status, 200, JSON.stringify(page.body));
      assert.ok(page.body.data.every((e: { id: string }) => JOB.test(e.id)));
      const openAi = await client.get('/v1/videos?order=desc');
      assert.ok(
        openAi.body.data.every((e: { id: string }) => e.id.startsWith('video_')),
        'OpenAI lists its own',
      );

      await hook.until((all) => all.some((r) => JSON.parse(r.body).type === 'video.completed'));
      const completed = hook.received.map((r) => JSON.parse(r.body)).find((e) => e.type === 'video.completed');
      assertProviderShape(completed.data.object);
      assert.equal(completed.data.object.id, id);
      assert.equal(completed.data.object.status, 'completed');
    } finally {
      await hook.close();
    }
  });

  it('a cancelled job is `cancelled` with `error` a string', async () => {
    // An API process with no worker: the job stays pending until it is cancelled.
    const apiOnly = await startTestService({ VIDGEN_ROLE: 'api' });
    try {
      const caller = api(apiOnly.url, await apiOnly.createKey('openrouter-cancel'));
      const create = await caller.post('/v1/videos', { model: MODEL, prompt: 'a long harbour pan' }, AGENT);
      assert.equal(create.status, 200, JSON.stringify(create.body));
      assert.equal((await caller.get(`/v1/videos/${create.body.id}`)).body.status, 'pending');
      const canceled = await caller.post(`/v1/videos/${create.body.id}/cancel`);
      assert.equal(canceled.status, 200, JSON.stringify(canceled.body));
      assertProviderShape(canceled.body);
      assert.equal(canceled.body.status, 'cancelled');
      assert.equal(typeof canceled.body.error, 'string');
      const polled = await caller.get(`/v1/videos/${create.body.id}`);
      assert.equal(polled.body.status, 'cancelled');
    } finally {
      await apiOnly.close();
    }
  });

  it("another account's job is a 404", async () => {
    const create = await client.post('/v1/videos', { model: MODEL, prompt: 'a kite', duration: 1 });
    const other = api(svc.url, await svc.createKey('openrouter-other'));
    const polled = await other.get(`/v1/videos/${create.body.id}`);
    assert.equal(polled.status, 404, JSON.stringify(polled.body));
    assert.equal(typeof polled.body.error.message, 'string');
    await client.post(`/v1/videos/${create.body.id}/cancel`);
  });
});
