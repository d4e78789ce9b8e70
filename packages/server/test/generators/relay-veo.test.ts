/**
 * Gemini API Veo as a relay upstream, against a stand-in written from Google's documentation
 * (test/support/veo-standin.ts): the long-running operation polled by its name, the sample's file
 * link fetched with `x-goog-api-key` and followed to storage, a run filtered by Google's safety
 * filters failing as `content_moderated` (never a success), failed runs, 429, a bad key, lost
 * answers and files past their retention.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { memoryCheckpoint } from '../../src/generators/generator.ts';
import { resolveFfmpegBinaries } from '../../src/media/ffmpeg-binaries.ts';
import { verifyVideo } from '../../src/media/video-probe.ts';
import { VeoStandin } from '../support/veo-standin.ts';
import { RelayFaultProxy } from '../support/relay-fault-proxy.ts';
import { context, failure, job, relayOf, type RawChannel } from '../support/relay-fixtures.ts';

const bins = resolveFfmpegBinaries({});
const env = { GEMINI_API_KEY: 'AIzaSy-test-gemini-key-0001', OTHER_KEY: 'AIzaSy-wrong' };
const MODEL = 'veo-3.1-fast-generate-preview';
const veoChannel = (url: string, extra: RawChannel = {}): RawChannel => ({
  name: 'gemini',
  dialect: 'veo',
  base_url: `${url}/v1beta`,
  api_key_env: 'GEMINI_API_KEY',
  models: { 'veo-720p': MODEL },
  poll_interval_seconds: 0.05,
  ...extra,
});
const job720 = (extra = {}) => job('A', { model: 'veo-720p', width: 1280, height: 720, duration: 4, ...extra });

describe('relay to Gemini API Veo', () => {
  let veo: VeoStandin;
  let root: string;
  let image: string;
  before(async () => {
    veo = await VeoStandin.start({ key: env.GEMINI_API_KEY, models: [MODEL] });
    root = await mkdtemp(join(tmpdir(), 'vidgen-relay-veo-'));
    image = join(root, 'first.jpg');
    await sharp({ create: { width: 64, height: 36, channels: 3, background: '#aa5500' } })
      .jpeg()
      .toFile(image);
  });
  after(async () => {
    await veo?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('an operation polled by its name ends as a verified MP4; the file link is fetched with the key and followed', async () => {
    const before = veo.operations.length;
    const fetched = veo.media.fetched.length;
    const r = await context(root);
    const out = await relayOf([veoChannel(veo.url, { extra_body: { personGeneration: 'allow_adult' } })], env).generate(
      job720({ images: [image] }),
      r.ctx,
    );
    await verifyVideo(bins.ffprobe, out.path, { width: 1280, height: 720, durationSeconds: 4, fps: 24 });
    assert.equal(veo.operations.length - before, 1, 'exactly one operation');
    const op = veo.operations.at(-1)!;
    assert.deepEqual(op.body.parameters, {
      aspectRatio: '16:9',
      durationSeconds: '4',
      resolution: '720p',
      personGeneration: 'allow_adult',
    });
    assert.equal(op.body.instances[0].prompt, 'a lighthouse at dusk, slow push in');
    assert.equal(op.body.instances[0].image.mimeType, 'image/jpeg');
    assert.ok(
      Buffer.from(op.body.instances[0].image.bytesBase64Encoded, 'base64')
        .subarray(0, 2)
        .equals(Buffer.from([0xff, 0xd8])),
    );
    assert.ok(
      veo.requests.every((q) => q.headers['x-goog-api-key'] === env.GEMINI_API_KEY && !q.headers.authorization),
    );
    assert.ok(
      veo.requests.some((q) => q.path === `/v1beta/${op.name}`),
      'polled by the operation name',
    );
    assert.ok(
      veo.requests.some((q) => q.path.startsWith(`/v1beta/files/${op.fileId}:download`)),
      'the file link',
    );
    assert.equal(veo.media.fetched.length - fetched, 1, 'the redirect to storage was followed');
    assert.equal((r.saves.at(-1) as { upstreamId: string }).upstreamId, op.name);
  });

  it('a run done with no sample (filtered) fails as content_moderated and is not retried', async () => {
    veo.filterNext = { count: 1, reason: 'The prompt could not be submitted: it may violate our policies.' };
    const err = await failure(relayOf([veoChannel(veo.url)], env).generate(job720(), (await context(root)).ctx));
    assert.deepEqual([err.code, err.retryable], ['content_moderated', false]);
  });

  it('a run done with an error is upstream_failed with its message', async () => {
    veo.failNext = { count: 1, message: 'Video generation failed due to an internal error.' };
    const err = await failure(relayOf([veoChannel(veo.url)], env).generate(job720(), (await context(root)).ctx));
    assert.deepEqual([err.code, err.retryable], ['upstream_failed', false]);
    assert.match(err.message, /internal error/);
  });

  it('429 RESOURCE_EXHAUSTED and a bad key (400 "API key not valid") are refusals: the next channel takes the task', async () => {
    const second = await VeoStandin.start({ key: env.GEMINI_API_KEY, models: [MODEL] });
    try {
      veo.exhausted = 1;
      const channels = [veoChannel(veo.url, { priority: 2 }), veoChannel(second.url, { name: 'second', priority: 1 })];
      await relayOf(channels, env).generate(job720(), (await context(root)).ctx);
      assert.deepEqual([veo.exhausted, second.operations.length], [0, 1]);
      const wrongKey = [veoChannel(veo.url, { api_key_env: 'OTHER_KEY', priority: 2 }), channels[1]];
      await relayOf(wrongKey, env).generate(job720(), (await context(root)).ctx);
      assert.equal(second.operations.length, 2);
      const alone = await failure(
        relayOf([veoChannel(veo.url, { api_key_env: 'OTHER_KEY' })], env).generate(job720(), (await context(root)).ctx),
      );
      assert.deepEqual([alone.code, alone.retryable], ['backend_unavailable', true]);
    } finally {
      await second.close();
    }
  });

  it('a lost create answer leaves one operation and fails without a resubmit; a file past retention is expired', async () => {
    const proxy = await RelayFaultProxy.start(veo.url);
    try {
      const before = veo.operations.length;
      proxy.fault({ method: 'POST', path: /:predictLongRunning$/, times: 1, action: { kind: 'forward-then-drop' } });
      const relay = relayOf([veoChannel(proxy.url)], env);
      const checkpoint = memoryCheckpoint();
      const err = await failure(relay.generate(job720(), (await context(root, { checkpoint })).ctx));
      assert.deepEqual([err.code, err.retryable], ['upstream_submit_unconfirmed', false]);
      const again = await failure(
        relay.generate({ ...job720(), attempt: 2 }, (await context(root, { checkpoint })).ctx),
      );
      assert.equal(again.code, 'upstream_submit_unconfirmed');
      assert.equal(veo.operations.length - before, 1, 'exactly one operation');
      proxy.clearFaults();
      // Done, but the file is gone by the time it is fetched (Gemini keeps generated videos two days).
      proxy.fault({
        method: 'GET',
        path: /\/operations\//,
        action: {
          kind: 'rewrite',
          body: (op) => (op.done && veo.deletedFiles.add(veo.operations.at(-1)!.fileId), op),
        },
      });
      const expired = await failure(relay.generate(job720(), (await context(root)).ctx));
      assert.deepEqual([expired.code, expired.retryable], ['upstream_result_expired', false]);
    } finally {
      await proxy.close();
    }
  });

  it('a canceled task sends nothing more: Veo operations have no cancel', async () => {
    const slow = await VeoStandin.start({
      key: env.GEMINI_API_KEY,
      models: [MODEL],
      pendingPolls: Number.MAX_SAFE_INTEGER,
    });
    try {
      const controller = new AbortController();
      const r = await context(root, { signal: controller.signal });
      const running = relayOf([veoChannel(slow.url)], env).generate(job720(), {
        ...r.ctx,
        onProgress: (p) => p >= 0.03 && controller.abort('canceled'),
      });
      assert.equal((await failure(running)).code, 'canceled');
      assert.ok(slow.requests.every((q) => q.method === 'GET' || q.path.endsWith(':predictLongRunning')));
    } finally {
      await slow.close();
    }
  });
});
