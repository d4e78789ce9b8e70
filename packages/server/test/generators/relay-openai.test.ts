/**
 * The OpenAI Videos shape as a relay upstream, against stand-ins of vLLM-Omni and SGLang Diffusion
 * written from their own server code (test/support/openai-video-standins.ts): the create encoded as
 * each server takes it, per-channel fields passed through, sizes rounded to the model's patch and
 * cropped back, `openai-poll-after-ms`, the content endpoint, cancel and deadline by DELETE where it
 * aborts (vLLM-Omni) and never where it does not (SGLang), lost answers, 429, 5xx, failures and
 * expired results.
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
import { parseRelayBackend } from '../../src/generators/relay/relay-config.ts';
import { RelayGenerator } from '../../src/generators/relay/relay-generator.ts';
import { SglangStandin } from '../support/sglang-standin.ts';
import { VllmOmniStandin } from '../support/vllm-omni-standin.ts';
import { RelayFaultProxy } from '../support/relay-fault-proxy.ts';
import { context, FAST_TIMINGS, failure, job, testFetchForeign, type RawChannel } from '../support/relay-fixtures.ts';

const bins = resolveFfmpegBinaries({});
const env = { VLLM_KEY: 'vllm-served-key', SGLANG_KEY: 'unused-but-required' };
const vllmChannel = (url: string, extra: RawChannel = {}): RawChannel => ({
  name: 'vllm',
  dialect: 'openai',
  upstream: 'vllm-omni',
  base_url: `${url}/v1`,
  api_key_env: 'VLLM_KEY',
  models: { 'wan-720p': 'Wan-AI/Wan2.2-T2V-A14B-Diffusers' },
  poll_interval_seconds: 0.05,
  ...extra,
});
const sglangChannel = (url: string, extra: RawChannel = {}): RawChannel => ({
  name: 'sglang',
  dialect: 'openai',
  upstream: 'sglang',
  base_url: url,
  api_key_env: 'SGLANG_KEY',
  models: { 'wan-720p': 'Wan-AI/Wan2.1-T2V-1.3B-Diffusers' },
  poll_interval_seconds: 0.05,
  ...extra,
});
const relayOf = (channels: RawChannel[], backend: Record<string, unknown> = {}) =>
  new RelayGenerator(parseRelayBackend({ type: 'relay', channels, request_timeout_seconds: 5, ...backend }, env), {
    fetchForeign: testFetchForeign,
    timings: FAST_TIMINGS,
    binaries: bins,
  });
const job720 = (extra = {}) => job('B', { model: 'wan-720p', width: 1280, height: 720, duration: 2, ...extra });
const verify = (path: string, width = 1280, height = 720, seconds = 2) =>
  verifyVideo(bins.ffprobe, path, { width, height, durationSeconds: seconds, fps: 24 });

describe('relay to OpenAI-shape servers (vLLM-Omni, SGLang Diffusion)', () => {
  let vllm: VllmOmniStandin;
  let sglang: SglangStandin;
  let root: string;
  let image: string;
  before(async () => {
    vllm = await VllmOmniStandin.start({ key: env.VLLM_KEY });
    sglang = await SglangStandin.start();
    root = await mkdtemp(join(tmpdir(), 'vidgen-relay-openai-'));
    image = join(root, 'first.png');
    await sharp({ create: { width: 64, height: 36, channels: 3, background: '#336699' } })
      .png()
      .toFile(image);
  });
  after(async () => {
    await vllm?.close();
    await sglang?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('vLLM-Omni: a multipart create with the channel fields passed through ends as a verified MP4 from one job, never /sync', async () => {
    const before = vllm.jobs.length;
    const extra_body = {
      generate_sound: true,
      extra_params: { preencode_mp4: true },
      lora: { name: 'studio-look', scale: 0.8 },
      num_inference_steps: 30,
    };
    const r = await context(root);
    const out = await relayOf([vllmChannel(vllm.url, { extra_body })]).generate(job720(), r.ctx);
    await verify(out.path);
    assert.equal(vllm.jobs.length - before, 1, 'exactly one upstream job');
    const sent = vllm.jobs.at(-1)!;
    assert.equal(sent.encoding, 'multipart');
    assert.match(sent.id, /^video_gen_[0-9a-f]{32}$/);
    assert.deepEqual(
      [
        sent.fields.seconds,
        sent.fields.size,
        sent.fields.fps,
        sent.fields.generate_sound,
        sent.fields.num_inference_steps,
      ],
      ['2', '1280x720', '24', 'true', '30'],
    );
    assert.deepEqual([sent.fields.extra_params, sent.fields.lora], [extra_body.extra_params, extra_body.lora]);
    assert.equal(vllm.syncCalls, 0);
    assert.ok(vllm.requests.every((q) => q.headers.authorization === `Bearer ${env.VLLM_KEY}`));
    assert.ok(
      vllm.requests.some((q) => q.path === `/v1/videos/${sent.id}/content`),
      'fetched from /content',
    );
    assert.equal((r.saves.at(-1) as { upstreamId: string }).upstreamId, sent.id);
  });

  it('SGLang: JSON for text, multipart with the image as an input_reference file; one job each', async () => {
    const before = sglang.jobs.length;
    await verify((await relayOf([sglangChannel(sglang.url)]).generate(job720(), (await context(root)).ctx)).path);
    const text = sglang.jobs.at(-1)!;
    assert.deepEqual(
      [text.encoding, text.fields.seconds, text.fields.size, text.fields.fps],
      ['json', '2', '1280x720', 24],
    );
    const withImage = job720({ images: [image] });
    await verify((await relayOf([sglangChannel(sglang.url)]).generate(withImage, (await context(root)).ctx)).path);
    const i2v = sglang.jobs.at(-1)!;
    assert.equal(i2v.encoding, 'multipart');
    assert.equal(i2v.fields.input_reference.type, 'image/png');
    assert.ok(i2v.fields.input_reference.file.subarray(1, 4).equals(Buffer.from('PNG')));
    assert.equal(sglang.jobs.length - before, 2);
  });

  it("sizes off the model's patch: refused by the model unless the channel rounds them (size_multiple) and crops back", async () => {
    const small = job720({ width: 320, height: 180 });
    const err = await failure(relayOf([vllmChannel(vllm.url)]).generate(small, (await context(root)).ctx));
    assert.deepEqual([err.code, err.retryable], ['upstream_failed', false]);
    assert.match(err.message, /divisible by 16/);
    assert.match(err.message, /upstream code: ValueError/);
    const out = await relayOf([vllmChannel(vllm.url, { size_multiple: 16 })]).generate(
      small,
      (await context(root)).ctx,
    );
    assert.equal(vllm.jobs.at(-1)!.fields.size, '320x192');
    await verify(out.path, 320, 180);
  });

  it('openai-poll-after-ms paces the polls where the server sends it, over the channel interval', async () => {
    const paced = await SglangStandin.start({ pollAfterMs: 20 });
    try {
      // A ten-minute interval: only the server's hint can finish this task while the test waits.
      const channel = sglangChannel(paced.url, { poll_interval_seconds: 600 });
      await verify((await relayOf([channel]).generate(job720(), (await context(root)).ctx)).path);
      assert.ok(paced.requests.filter((q) => q.method === 'GET' && !q.path.endsWith('/content')).length >= 3);
    } finally {
      await paced.close();
    }
  });

  it('a lost create answer leaves exactly one upstream job and fails without a resubmit, on later attempts too', async () => {
    const proxy = await RelayFaultProxy.start(vllm.url);
    try {
      const before = vllm.jobs.length;
      proxy.fault({ method: 'POST', path: /^\/v1\/videos$/, times: 1, action: { kind: 'forward-then-drop' } });
      const relay = relayOf([vllmChannel(proxy.url)]);
      const checkpoint = memoryCheckpoint();
      const err = await failure(relay.generate(job720(), (await context(root, { checkpoint })).ctx));
      assert.deepEqual([err.code, err.retryable], ['upstream_submit_unconfirmed', false]);
      const again = await failure(
        relay.generate({ ...job720(), attempt: 2 }, (await context(root, { checkpoint })).ctx),
      );
      assert.equal(again.code, 'upstream_submit_unconfirmed');
      assert.equal(vllm.jobs.length - before, 1, 'exactly one upstream job');
    } finally {
      await proxy.close();
    }
  });

  it('429 is a refusal (the next channel takes the task); 5xx on polls is waited out', async () => {
    vllm.rateLimited = 1;
    const before = sglang.jobs.length;
    const both = relayOf([vllmChannel(vllm.url, { priority: 2 }), sglangChannel(sglang.url, { priority: 1 })]);
    await verify((await both.generate(job720(), (await context(root)).ctx)).path);
    assert.deepEqual([vllm.rateLimited, sglang.jobs.length - before], [0, 1]);
    const proxy = await RelayFaultProxy.start(sglang.url);
    try {
      proxy.fault({
        method: 'GET',
        path: /^\/v1\/videos\/[\w-]+$/,
        times: 2,
        action: { kind: 'answer', status: 503, body: { detail: 'Service Unavailable' } },
      });
      await verify((await relayOf([sglangChannel(proxy.url)]).generate(job720(), (await context(root)).ctx)).path);
      assert.equal(proxy.seen('GET', /^\/v1\/videos\/[\w-]+$/).filter((q) => q.fault).length, 2);
    } finally {
      await proxy.close();
    }
  });

  it('a failed run keeps its reason; a result gone from the server before it was fetched is upstream_result_expired', async () => {
    sglang.failNext = { count: 1, message: 'CUDA out of memory. Tried to allocate 2.00 GiB' };
    const failed = await failure(relayOf([sglangChannel(sglang.url)]).generate(job720(), (await context(root)).ctx));
    assert.deepEqual([failed.code, failed.retryable], ['upstream_failed', false]);
    assert.match(failed.message, /CUDA out of memory/);
    const proxy = await RelayFaultProxy.start(vllm.url);
    try {
      // The file is lost just as the job reports completed (a restart without its storage volume).
      proxy.fault({
        method: 'GET',
        path: /^\/v1\/videos\/[\w-]+$/,
        action: { kind: 'rewrite', body: (v) => (v.status === 'completed' && vllm.expireFiles(), v) },
      });
      const err = await failure(relayOf([vllmChannel(proxy.url)]).generate(job720(), (await context(root)).ctx));
      assert.deepEqual([err.code, err.retryable], ['upstream_result_expired', false]);
    } finally {
      await proxy.close();
    }
  });

  it('cancel and deadline abort the vLLM-Omni job with DELETE; SGLang, whose DELETE does not abort, is never sent one', async () => {
    const slow = await VllmOmniStandin.start({ key: env.VLLM_KEY, pendingPolls: Number.MAX_SAFE_INTEGER });
    const slowSglang = await SglangStandin.start({ pendingPolls: Number.MAX_SAFE_INTEGER });
    try {
      for (const reason of ['canceled', 'deadline'] as const) {
        const controller = new AbortController();
        const r = await context(root, { signal: controller.signal });
        const running = relayOf([vllmChannel(slow.url)]).generate(job720(), {
          ...r.ctx,
          onProgress: (p) => p >= 0.03 && controller.abort(reason),
        });
        const err = await failure(running);
        assert.equal(err.code, reason === 'canceled' ? 'canceled' : 'deadline_exceeded');
        if (reason === 'deadline') {
          assert.equal(err.retryable, false, 'the job was aborted upstream: a retry could only pay again');
          assert.equal((r.saves.at(-1) as { upstreamCanceled?: boolean }).upstreamCanceled, true);
        }
        const last = slow.jobs.at(-1)!;
        assert.ok(slow.requests.some((q) => q.method === 'DELETE' && q.path === `/v1/videos/${last.id}`));
        assert.deepEqual([last.aborted, last.deleted], [true, true]);
      }
      const controller = new AbortController();
      const r = await context(root, { signal: controller.signal });
      const running = relayOf([sglangChannel(slowSglang.url)]).generate(job720(), {
        ...r.ctx,
        onProgress: (p) => p >= 0.03 && controller.abort('canceled'),
      });
      assert.equal((await failure(running)).code, 'canceled');
      assert.ok(!slowSglang.requests.some((q) => q.method === 'DELETE'), 'no DELETE: it would only lose the job');
    } finally {
      await slow.close();
      await slowSglang.close();
    }
  });

  it("each server's refusals are read in its own shape: vLLM-Omni's 422 {detail: [...]}, SGLang's 400 {detail}", async () => {
    // A channel told to send JSON to vLLM-Omni, which reads form fields only: FastAPI's 422 lists the field.
    const before = vllm.jobs.length;
    const json = await failure(
      relayOf([vllmChannel(vllm.url, { multipart: 'never' })]).generate(job720(), (await context(root)).ctx),
    );
    assert.deepEqual([json.code, json.retryable], ['invalid_input', false]);
    assert.equal(vllm.jobs.length, before, 'nothing was created');
    const proxy = await RelayFaultProxy.start(sglang.url);
    try {
      proxy.fault({
        method: 'POST',
        path: /^\/v1\/videos$/,
        action: { kind: 'answer', status: 400, body: { detail: 'Invalid request body: size must be WIDTHxHEIGHT' } },
      });
      const bad = await failure(relayOf([sglangChannel(proxy.url)]).generate(job720(), (await context(root)).ctx));
      assert.deepEqual([bad.code, bad.retryable], ['invalid_input', false]);
    } finally {
      await proxy.close();
    }
  });

  it('a wrong key on vLLM-Omni (401) is a refusal; edits go to no channel that does not offer them', async () => {
    const err = await failure(
      relayOf([vllmChannel(vllm.url, { api_key_env: 'SGLANG_KEY' })]).generate(job720(), (await context(root)).ctx),
    );
    assert.deepEqual([err.code, err.retryable], ['backend_unavailable', true]);
    assert.deepEqual(relayOf([vllmChannel(vllm.url)]).kinds, ['generate']);
    assert.deepEqual(relayOf([vllmChannel(vllm.url, { edits: true })]).kinds, ['generate', 'edit', 'extend']);
  });
});
