/**
 * The fal queue API and Replicate predictions as relay upstreams, against protocol-faithful
 * stand-ins on loopback (test/support/hosted-standins.ts): per-channel input templates, the
 * checkpointed request id, lost answers (never a second job), 429, 5xx, expired result links,
 * failures and cancel. What vidgen needs of fal and Replicate.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryCheckpoint } from '../../src/generators/generator.ts';
import { resolveFfmpegBinaries } from '../../src/media/ffmpeg-binaries.ts';
import { verifyVideo } from '../../src/media/video-probe.ts';
import { FalStandin, ReplicateStandin } from '../support/hosted-standins.ts';
import { RelayFaultProxy } from '../support/relay-fault-proxy.ts';
import { context, failure, job, relayOf, type RawChannel } from '../support/relay-fixtures.ts';

const bins = resolveFfmpegBinaries({});
const env = { FAL_KEY: 'fal-key-id:fal-key-secret', REPLICATE_KEY: 'r8_test_token_0001' };
const FAL_MODEL = 'fal-ai/kling-video/v2/master/text-to-video';
const REPLICATE_MODEL = 'kwaivgi/kling-v2.1';
const falChannel = (url: string, extra: RawChannel = {}): RawChannel => ({
  name: 'fal',
  dialect: 'fal',
  base_url: url,
  api_key_env: 'FAL_KEY',
  models: { 'ours-720p': FAL_MODEL },
  poll_interval_seconds: 0.05,
  ...extra,
});
const replicateChannel = (url: string, extra: RawChannel = {}): RawChannel => ({
  name: 'replicate',
  dialect: 'replicate',
  base_url: url,
  api_key_env: 'REPLICATE_KEY',
  models: { 'ours-720p': REPLICATE_MODEL },
  poll_interval_seconds: 0.05,
  ...extra,
});
const job720 = () => job('B', { model: 'ours-720p', width: 1280, height: 720, duration: 5 });
const verify720 = (path: string) =>
  verifyVideo(bins.ffprobe, path, { width: 1280, height: 720, durationSeconds: 5, fps: 24 });

describe('relay to the fal queue API and Replicate predictions', () => {
  let fal: FalStandin;
  let replicate: ReplicateStandin;
  let root: string;
  before(async () => {
    fal = await FalStandin.start({ key: env.FAL_KEY, models: [FAL_MODEL] });
    replicate = await ReplicateStandin.start({
      key: env.REPLICATE_KEY,
      models: [REPLICATE_MODEL, 'acme/tiny-video:5c7d5dc6dd8bf75c1acaa8565735e7986bc5b66206b55cca93cb72c9bf15ccaa'],
    });
    root = await mkdtemp(join(tmpdir(), 'vidgen-relay-hosted-'));
  });
  after(async () => {
    await fal?.close();
    await replicate?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('fal: a 720p 16:9 5 s task goes through the queue (Key auth, status and result under the app id) to a verified MP4', async () => {
    const r = await context(root);
    const out = await relayOf([falChannel(fal.url)], env).generate(job720(), r.ctx);
    await verify720(out.path);
    const sent = fal.jobs.at(-1)!;
    assert.deepEqual(sent.input, { prompt: 'a lighthouse at dusk, slow push in', duration: '5', aspect_ratio: '16:9' });
    assert.ok(fal.requests.every((q) => q.headers.authorization === `Key ${env.FAL_KEY}`));
    assert.ok(fal.requests.some((q) => q.path === `/fal-ai/kling-video/requests/${sent.id}/status`));
    assert.ok(
      fal.requests.some((q) => q.path === `/fal-ai/kling-video/requests/${sent.id}`),
      'the output is read from the result endpoint',
    );
    const saved = r.saves.at(-1) as { upstreamId: string; upstreamMetrics?: Record<string, number> };
    assert.equal(saved.upstreamId, sent.id);
    assert.equal(saved.upstreamMetrics?.inference_time, 7.5);
  });

  it("Replicate: a task goes to the model's predictions endpoint (or a version's) and comes back as a verified MP4", async () => {
    const r = await context(root);
    const out = await relayOf([replicateChannel(replicate.url)], env).generate(job720(), r.ctx);
    await verify720(out.path);
    assert.deepEqual(replicate.jobs.at(-1)!.input, {
      prompt: 'a lighthouse at dusk, slow push in',
      duration: 5,
      aspect_ratio: '16:9',
    });
    assert.ok(
      replicate.requests.some((q) => q.method === 'POST' && q.path === `/v1/models/${REPLICATE_MODEL}/predictions`),
    );
    assert.equal((r.saves.at(-1) as { upstreamMetrics?: Record<string, number> }).upstreamMetrics?.predict_time, 12.5);
    const versioned = replicateChannel(replicate.url, {
      models: { 'ours-720p': 'acme/tiny-video:5c7d5dc6dd8bf75c1acaa8565735e7986bc5b66206b55cca93cb72c9bf15ccaa' },
    });
    await verify720((await relayOf([versioned], env).generate(job720(), (await context(root)).ctx)).path);
    const last = replicate.requests.filter((q) => q.method === 'POST').at(-1)!;
    assert.deepEqual(
      [last.path, last.body.version],
      ['/v1/predictions', '5c7d5dc6dd8bf75c1acaa8565735e7986bc5b66206b55cca93cb72c9bf15ccaa'],
    );
  });

  it('a per-channel input template names the inputs the way the upstream model does', async () => {
    const input = {
      prompt: 'cinematic, {{prompt}}',
      duration: '{{duration}}',
      aspect_ratio: '{{ratio}}',
      negative_prompt: 'blur',
      seed: '{{seed}}',
      start_image: '{{image}}',
    };
    await relayOf([replicateChannel(replicate.url, { input })], env).generate(job720(), (await context(root)).ctx);
    assert.deepEqual(replicate.jobs.at(-1)!.input, {
      prompt: 'cinematic, a lighthouse at dusk, slow push in',
      duration: 5,
      aspect_ratio: '16:9',
      negative_prompt: 'blur',
    });
  });

  for (const kind of ['fal', 'replicate'] as const) {
    it(`${kind}: a lost submit answer ends in exactly one upstream job and a clear failure, on later attempts too`, async () => {
      const standin = kind === 'fal' ? fal : replicate;
      const proxy = await RelayFaultProxy.start(standin.url);
      try {
        const before = standin.jobs.length;
        proxy.fault({
          method: 'POST',
          path: kind === 'fal' ? /text-to-video$/ : /predictions$/,
          times: 1,
          action: { kind: 'forward-then-drop' },
        });
        const relay = relayOf([kind === 'fal' ? falChannel(proxy.url) : replicateChannel(proxy.url)], env);
        const checkpoint = memoryCheckpoint();
        const err = await failure(relay.generate(job720(), (await context(root, { checkpoint })).ctx));
        assert.deepEqual([err.code, err.retryable], ['upstream_submit_unconfirmed', false]);
        assert.equal(
          (await failure(relay.generate({ ...job720(), attempt: 2 }, (await context(root, { checkpoint })).ctx))).code,
          'upstream_submit_unconfirmed',
        );
        assert.equal(standin.jobs.length - before, 1, 'exactly one upstream job');
      } finally {
        await proxy.close();
      }
    });
  }

  it('429 on submit is a refusal (the next channel takes the task); 5xx on polls is waited out', async () => {
    fal.rateLimited = 1;
    const before = replicate.jobs.length;
    await relayOf(
      [falChannel(fal.url, { priority: 2 }), replicateChannel(replicate.url, { priority: 1 })],
      env,
    ).generate(job720(), (await context(root)).ctx);
    assert.deepEqual([fal.rateLimited, replicate.jobs.length - before], [0, 1]);
    replicate.rateLimited = 1;
    const alone = await failure(
      relayOf([replicateChannel(replicate.url)], env).generate(job720(), (await context(root)).ctx),
    );
    assert.deepEqual([alone.code, alone.retryable], ['backend_unavailable', true]);
    const proxy = await RelayFaultProxy.start(fal.url);
    try {
      proxy.fault({
        method: 'GET',
        path: /\/status$/,
        times: 2,
        action: { kind: 'answer', status: 503, body: { detail: 'Service Unavailable' } },
      });
      await verify720((await relayOf([falChannel(proxy.url)], env).generate(job720(), (await context(root)).ctx)).path);
      assert.equal(proxy.seen('GET', /\/status$/).filter((q) => q.fault).length, 2);
    } finally {
      await proxy.close();
    }
  });

  it('Replicate: an output link that expired before it was fetched fails as upstream_result_expired', async () => {
    replicate.media.expireLinks = 404;
    try {
      const err = await failure(
        relayOf([replicateChannel(replicate.url)], env).generate(job720(), (await context(root)).ctx),
      );
      assert.deepEqual([err.code, err.retryable], ['upstream_result_expired', false]);
    } finally {
      replicate.media.expireLinks = 0;
    }
  });

  it('a model failure is upstream_failed with its reason; fal cancels with PUT, Replicate with POST', async () => {
    fal.failNext = { count: 1, reason: 'The prompt could not be processed' };
    const err = await failure(relayOf([falChannel(fal.url)], env).generate(job720(), (await context(root)).ctx));
    assert.deepEqual([err.code, err.retryable], ['upstream_failed', false]);
    assert.match(err.message, /could not be processed/);
    for (const [standin, channel, method] of [
      [fal, falChannel(fal.url, { name: 'fal' }), 'PUT'],
      [replicate, replicateChannel(replicate.url), 'POST'],
    ] as const) {
      const controller = new AbortController();
      const r = await context(root, { signal: controller.signal });
      const running = relayOf([channel], env).generate(job720(), {
        ...r.ctx,
        onProgress: (p) => p >= 0.03 && controller.abort('canceled'),
      });
      assert.equal((await failure(running)).code, 'canceled');
      assert.ok(
        standin.requests.some((q) => q.method === method && q.path.endsWith('/cancel')),
        `${method} …/cancel was sent`,
      );
      assert.equal(standin.jobs.at(-1)!.canceled, true);
    }
  });

  it('Replicate: a deadline that finds the prediction already succeeded is not final; the retry downloads it, one prediction', async () => {
    const proxy = await RelayFaultProxy.start(replicate.url);
    try {
      const before = replicate.jobs.length;
      const relay = relayOf([replicateChannel(proxy.url)], env);
      const checkpoint = memoryCheckpoint();
      const stop = new AbortController();
      // The deadline falls just as the poll answers `succeeded`: the attempt stops before the download.
      proxy.fault({
        method: 'GET',
        path: /^\/v1\/predictions\/[\w-]+$/,
        action: { kind: 'rewrite', body: (json) => (json.status === 'succeeded' && stop.abort('deadline'), json) },
      });
      const first = relay.generate(job720(), (await context(root, { signal: stop.signal, checkpoint })).ctx);
      // Replicate answers the cancel of a finished prediction 200 with it `succeeded`: nothing was canceled.
      assert.equal((await failure(first)).code, 'canceled');
      assert.ok(
        proxy.requests.some((q) => q.method === 'POST' && q.path.endsWith('/cancel')),
        'the cancel was sent',
      );
      assert.equal(replicate.jobs.at(-1)!.canceled, false);
      await verify720(
        (await relay.generate({ ...job720(), attempt: 2 }, (await context(root, { checkpoint })).ctx)).path,
      );
      assert.equal(replicate.jobs.length, before + 1, 'the retry followed the same prediction');
    } finally {
      await proxy.close();
    }
  });
});
