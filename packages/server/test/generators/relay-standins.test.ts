/**
 * The relay against stand-ins of the real upstreams (xAI and a new-api gateway), written from their
 * own code (test/support/xai-standin.ts, newapi-standin.ts): what they read, what they default, what
 * they refuse, and what they lack (listing, cancel, Idempotency-Key). What vidgen needs of them for
 * dialects A and B.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryCheckpoint } from '../../src/generators/generator.ts';
import { resolveFfmpegBinaries } from '../../src/media/ffmpeg-binaries.ts';
import { verifyVideo } from '../../src/media/video-probe.ts';
import { RelayFaultProxy } from '../support/relay-fault-proxy.ts';
import { assertNoLeak, context, failure, job, relayOf, type RawChannel } from '../support/relay-fixtures.ts';
import { XaiStandin } from '../support/xai-standin.ts';
import { NewApiStandin } from '../support/newapi-standin.ts';

const bins = resolveFfmpegBinaries({});
const env = { XAI_KEY: 'xai-test-key-0001', NEWAPI_KEY: 'sk-newapi-test-0001', WRONG: 'xai-wrong-key' };
const xaiChannel = (url: string, extra: RawChannel = {}): RawChannel => ({
  name: 'xai',
  dialect: 'A',
  base_url: `${url}/v1`,
  api_key_env: 'XAI_KEY',
  models: { 'ours-720p': 'grok-imagine-video' },
  poll_interval_seconds: 0.05,
  ...extra,
});
const newApiChannel = (url: string, extra: RawChannel = {}): RawChannel => ({
  name: 'newapi',
  dialect: 'B',
  base_url: url,
  api_key_env: 'NEWAPI_KEY',
  models: { 'ours-720p': 'video-v1' },
  poll_interval_seconds: 0.05,
  ...extra,
});
/** Our catalog entry: 720p, 16:9, 5 s. */
const job720 = () => job('A', { model: 'ours-720p', width: 1280, height: 720, duration: 5 });

describe('relay against xAI and new-api stand-ins', () => {
  let xai: XaiStandin;
  let newApi: NewApiStandin;
  let root: string;
  before(async () => {
    xai = await XaiStandin.start({
      key: env.XAI_KEY,
      models: ['grok-imagine-video'],
      editModels: ['grok-imagine-video'],
    });
    // The content proxy stops each answer after 64 KiB, as new-api's does after 60 s.
    newApi = await NewApiStandin.start({ key: env.NEWAPI_KEY, models: ['video-v1'], proxyCutBytes: 64 * 1024 });
    root = await mkdtemp(join(tmpdir(), 'vidgen-relay-standins-'));
  });
  after(async () => {
    await xai?.close();
    await newApi?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('xAI: a 720p 16:9 5 s task is sent with its resolution and comes back as a verified MP4 of that shape, its cost recorded', async () => {
    const before = xai.jobs.length;
    const r = await context(root);
    const out = await relayOf([xaiChannel(xai.url)], env).generate(job720(), r.ctx);
    await verifyVideo(bins.ffprobe, out.path, { width: 1280, height: 720, durationSeconds: 5, fps: 24 });
    const sent = xai.jobs.at(-1)!;
    assert.equal(xai.jobs.length, before + 1);
    assert.deepEqual(
      [sent.body.resolution, sent.body.aspect_ratio, sent.body.duration, sent.body.seed],
      ['720p', '16:9', 5, undefined],
    );
    assert.ok(
      !xai.requests.some((q) => q.method === 'GET' && /^\/v1\/videos(\?|$)/.test(q.path)),
      'no listing is asked of xAI',
    );
    assert.ok(!xai.requests.some((q) => q.path.includes('wait=')), 'xAI does not hold polls, so none ask it to');
    assert.equal((r.saves.at(-1) as { upstreamCostUsdTicks?: number }).upstreamCostUsdTicks, 5 * 500_000_000);
    // …and handed to the engine with the video, which stores it on the task for the margin report.
    assert.equal(out.upstreamCostUsdTicks, 5 * 500_000_000);
  });

  it('new-api: the shape travels as size and seconds, and a content proxy that cuts every answer is resumed with Range', async () => {
    const before = newApi.tasks.length;
    const out = await relayOf([newApiChannel(newApi.url)], env).generate(job720(), (await context(root)).ctx);
    await verifyVideo(bins.ffprobe, out.path, { width: 1280, height: 720, durationSeconds: 5, fps: 24 });
    const sent = newApi.tasks.at(-1)!;
    assert.equal(newApi.tasks.length, before + 1);
    assert.deepEqual(
      [sent.body.size, sent.body.duration, sent.body.seconds, sent.body.ratio],
      ['1280x720', 5, '5', undefined],
    );
    const content = newApi.requests.filter((q) => q.path === `/v1/videos/${sent.taskId}/content`);
    assert.ok(
      content.length > 1 && content.slice(1).every((q) => /^bytes=\d+-$/.test(String(q.headers.range))),
      `resumed where each cut stopped: ${JSON.stringify(content.map((q) => q.headers.range ?? null))} fetched ${newApi.media.fetched.length}`,
    );
  });

  it("new-api: when the content proxy fails, the task's result link is fetched instead, without the key", async () => {
    newApi.proxyBroken = true;
    try {
      const fetchedBefore = newApi.media.fetched.length;
      const out = await relayOf([newApiChannel(newApi.url)], env).generate(job720(), (await context(root)).ctx);
      await verifyVideo(bins.ffprobe, out.path, { width: 1280, height: 720, durationSeconds: 5, fps: 24 });
      assert.ok(newApi.media.fetched.length > fetchedBefore, 'the provider link was fetched');
    } finally {
      newApi.proxyBroken = false;
    }
  });

  for (const kind of ['xai', 'new-api'] as const) {
    it(`${kind}: a lost submit answer ends in exactly one upstream job and a clear failure, on every later attempt too`, async () => {
      const target = kind === 'xai' ? xai.url : newApi.url;
      const count = () => (kind === 'xai' ? xai.jobs.length : newApi.tasks.length);
      const proxy = await RelayFaultProxy.start(target);
      try {
        const before = count();
        proxy.fault({ method: 'POST', path: /generations$/, times: 1, action: { kind: 'forward-then-drop' } });
        const relay = relayOf([kind === 'xai' ? xaiChannel(proxy.url) : newApiChannel(proxy.url)], env);
        const checkpoint = memoryCheckpoint();
        const j = job720();
        const err = await failure(relay.generate(j, (await context(root, { checkpoint })).ctx));
        assert.deepEqual([err.code, err.retryable], ['upstream_submit_unconfirmed', false]);
        // Were the engine to run it again anyway, the checkpoint says "sent, outcome unknown": nothing is sent.
        const again = await failure(relay.generate({ ...j, attempt: 2 }, (await context(root, { checkpoint })).ctx));
        assert.equal(again.code, 'upstream_submit_unconfirmed');
        assert.equal(proxy.seen('POST', /generations$/).length, 1, 'one create in all');
        assert.equal(count() - before, 1, 'exactly one upstream job');
      } finally {
        await proxy.close();
      }
    });
  }

  it('xAI: a bad key (400 "Incorrect API key") and an overloaded 529 fail over to the next channel', async () => {
    const before = xai.jobs.length;
    const relay = relayOf(
      [xaiChannel(xai.url, { api_key_env: 'WRONG', priority: 2 }), newApiChannel(newApi.url, { priority: 1 })],
      env,
    );
    const out = await relay.generate(job720(), (await context(root)).ctx);
    await verifyVideo(bins.ffprobe, out.path, { width: 1280, height: 720, durationSeconds: 5, fps: 24 });
    assert.equal(xai.jobs.length, before, 'the refused key made nothing');
    xai.overloaded = 1;
    const tasksBefore = newApi.tasks.length;
    await relayOf([xaiChannel(xai.url, { priority: 2 }), newApiChannel(newApi.url, { priority: 1 })], env).generate(
      job720(),
      (await context(root)).ctx,
    );
    assert.deepEqual([xai.overloaded, newApi.tasks.length - tasksBefore], [0, 1]);
  });

  it('new-api: get_channel_failed (500) and model_price_error (400) are channel problems: the next channel takes the task', async () => {
    for (const knob of ['channelFailures', 'priceErrors'] as const) {
      newApi[knob] = 1;
      const before = xai.jobs.length;
      await relayOf([newApiChannel(newApi.url, { priority: 2 }), xaiChannel(xai.url, { priority: 1 })], env).generate(
        job720(),
        (await context(root)).ctx,
      );
      assert.deepEqual([newApi[knob], xai.jobs.length - before], [0, 1], knob);
    }
  });

  it('xAI: a moderated result fails with its own code and is not retried', async () => {
    xai.moderateNext = 1;
    const err = await failure(relayOf([xaiChannel(xai.url)], env).generate(job720(), (await context(root)).ctx));
    assert.deepEqual([err.code, err.retryable], ['content_moderated', false]);
  });

  it("new-api: a FAILURE keeps the provider's fail_reason in the message, cleaned of links and ids", async () => {
    newApi.failNext = {
      count: 1,
      reason:
        'content policy violation, see https://provider.example/t/abc for request 9f8e7d6c5b4a39281706f5e4d3c2b1a0',
    };
    const err = await failure(relayOf([newApiChannel(newApi.url)], env).generate(job720(), (await context(root)).ctx));
    assert.deepEqual([err.code, err.retryable], ['upstream_failed', false]);
    assert.match(err.message, /content policy violation/);
    assertNoLeak(err.message, ['https://provider.example', '9f8e7d6c5b4a39281706f5e4d3c2b1a0', newApi.url]);
  });

  it('new-api: a task it no longer knows (400 task_not_exist) ends the attempt as a missing task', async () => {
    const relay = relayOf([newApiChannel(newApi.url)], env);
    const checkpoint = memoryCheckpoint();
    await checkpoint.save({
      relay: 1,
      channel: relay.config.channels[0].id,
      idempotencyKey: 'vg-x',
      upstreamId: 'task_gone',
    });
    const err = await failure(relay.generate(job720(), (await context(root, { checkpoint })).ctx));
    assert.equal(err.code, 'backend_unavailable');
    assert.match(err.message, /does not find the task/);
  });

  it('edits go only to xAI channels: a new-api channel is never offered one, and with no xAI channel nothing is sent', async () => {
    const input = await xai.media.render(320, 180, 2);
    const edit = job('A', {
      model: 'ours-720p',
      kind: 'edit',
      width: 320,
      height: 180,
      duration: 2,
      video: { path: input, width: 320, height: 180, durationSeconds: 2, frames: 48, frameRate: '24/1' },
    });
    const before = [xai.jobs.length, newApi.tasks.length];
    const refused = await failure(relayOf([newApiChannel(newApi.url)], env).generate(edit, (await context(root)).ctx));
    assert.deepEqual([refused.code, refused.retryable], ['invalid_input', false]);
    assert.deepEqual([xai.jobs.length, newApi.tasks.length], before, 'nothing was sent');
    // Both channels map the model; the new-api one has the higher priority, yet the edit goes to xAI.
    const out = await relayOf([newApiChannel(newApi.url, { priority: 5 }), xaiChannel(xai.url)], env).generate(
      edit,
      (await context(root)).ctx,
    );
    await verifyVideo(bins.ffprobe, out.path, { width: 320, height: 180, durationSeconds: 2, fps: 24 });
    assert.deepEqual([xai.jobs.at(-1)!.kind, newApi.tasks.length], ['edit', before[1]]);
  });
});
