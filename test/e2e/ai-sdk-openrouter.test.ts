import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { experimental_generateVideo as generateVideo } from 'ai';
import { createOpenRouter } from '@openrouter/ai-sdk-provider';
import { startTestService, type TestService } from './support/service.ts';
import { audioDataUri, makeAudio } from './support/audio.ts';
import { resolveFfmpegBinaries } from '../../packages/server/src/media/ffmpeg-binaries.ts';
import { probeVideo } from '../../packages/server/src/media/video-probe.ts';
import { psnr } from '../../packages/server/test/support/colour-analysis.ts';
import { picture, framed as framedAt } from './support/anchor-pictures.ts';

// The Vercel AI SDK with `@openrouter/ai-sdk-provider` 3.1.0, unmodified, against a real server
// (node_modules/@openrouter/ai-sdk-provider/dist/index.js, `OpenRouterVideoModel`): it posts
// `/videos` with `frame_images` made from the call's image, `size` (the SDK's `resolution`),
// `aspect_ratio`, `duration`, `seed` and `generate_audio`, spreads `providerOptions.openrouter` into
// the body (a last frame, `input_references`), polls `GET /videos/{id}` until `completed` and
// downloads `unsigned_urls[0]` with no key. The MP4 itself is checked: first and last frames by PSNR
// against the pictures sent, framed as the renderer frames them, and an AAC track where sound was
// asked for. The package declares Node 22; it runs on 20.
const run = promisify(execFile);
const bins = resolveFfmpegBinaries({});
const [W, H] = [854, 480];
const MODEL = 'grok-imagine-video-1.5';
const VENDOR_MODEL = 'x-ai/grok-imagine-video-1.5';
/** The SDK's documented `download` option: its default refuses loopback, where this server listens. */
const download = async ({ url }: { url: URL }) => {
  const res = await fetch(url);
  assert.equal(res.status, 200, `the unsigned URL answers without a key: ${url}`);
  return { data: new Uint8Array(await res.arrayBuffer()), mediaType: res.headers.get('content-type') ?? undefined };
};

const framed = (png: Buffer) => framedAt(png, W, H);
const dataUrl = (png: Buffer) => `data:image/png;base64,${png.toString('base64')}`;
const frameImage = (png: Buffer, frameType: 'first_frame' | 'last_frame') => ({
  type: 'image_url',
  image_url: { url: dataUrl(png) },
  frame_type: frameType,
});

describe('the AI SDK with @openrouter/ai-sdk-provider 3.1.0: text, frames, references and sound', () => {
  let svc: TestService;
  let dir: string;
  let openrouter: ReturnType<typeof createOpenRouter>;
  let first: Buffer;
  let last: Buffer;
  const settings = { pollIntervalMs: 100 };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vidgen-ai-openrouter-'));
    // The built-in catalog, with OpenRouter's vendor-prefixed id as an alias (docs/openai-videos.md).
    const catalog = JSON.parse(
      await readFile(new URL('../../packages/server/src/catalog/default-models.json', import.meta.url), 'utf8'),
    );
    for (const model of catalog.models) if (model.id === MODEL) model.aliases = [VENDOR_MODEL];
    await writeFile(join(dir, 'models.json'), JSON.stringify(catalog));
    svc = await startTestService({ VIDGEN_MODELS_FILE: join(dir, 'models.json') });
    openrouter = createOpenRouter({ apiKey: await svc.createKey('ai-sdk-openrouter'), baseURL: `${svc.url}/v1` });
    [first, last] = await Promise.all([picture('#1040c0', '#f0d020'), picture('#c02040', '#20e0a0')]);
  });
  after(async () => {
    await svc?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** The downloaded video in a file, and its decoded frames as packed RGB. */
  async function keep(bytes: Uint8Array, name: string): Promise<{ path: string; frames: Buffer[] }> {
    const path = join(dir, `${name}.mp4`);
    await writeFile(path, bytes);
    const { stdout } = await run(bins.ffmpeg, ['-v', 'error', '-i', path, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], {
      encoding: 'buffer',
      maxBuffer: 512 * 1024 * 1024,
    });
    const size = W * H * 3;
    return {
      path,
      frames: Array.from({ length: stdout.length / size }, (_, i) => stdout.subarray(i * size, (i + 1) * size)),
    };
  }

  it('text only, by its vendor-prefixed id: a silent MP4 of the size and length asked, and its cost in USD', async () => {
    const { video, providerMetadata } = await generateVideo({
      model: openrouter.videoModel(VENDOR_MODEL, settings),
      download,
      prompt: 'a lighthouse at dusk, slow pan right',
      duration: 2,
      aspectRatio: '16:9',
      resolution: '854x480',
      seed: 7,
    });
    const { path, frames } = await keep(video.uint8Array, 'text');
    assert.equal(frames.length, 48);
    const probe = await probeVideo(bins.ffprobe, path);
    assert.equal(probe.audioStreams, 0);
    const cost = (providerMetadata.openrouter as { cost: unknown }).cost;
    assert.equal(typeof cost, 'number');
    assert.ok((cost as number) > 0, `usage.cost ${String(cost)}`);
  });

  it("a first frame (the call's image): the video starts on it (>= 25 dB)", async () => {
    const { video } = await generateVideo({
      model: openrouter.videoModel(MODEL, settings),
      download,
      prompt: { image: first, text: 'a slow push in' },
      duration: 2,
      aspectRatio: '16:9',
      resolution: '854x480',
    });
    const { frames } = await keep(video.uint8Array, 'first');
    const a = await framed(first);
    assert.ok(psnr(frames[0], a) >= 25, `first frame ${psnr(frames[0], a).toFixed(1)} dB`);
  });

  it('first and last frame through providerOptions.openrouter: it starts on one and ends on the other', async () => {
    const { video } = await generateVideo({
      model: openrouter.videoModel(MODEL, settings),
      download,
      prompt: 'a slow push in',
      duration: 2,
      aspectRatio: '16:9',
      resolution: '854x480',
      providerOptions: {
        openrouter: { frame_images: [frameImage(first, 'first_frame'), frameImage(last, 'last_frame')] },
      },
    });
    const { frames } = await keep(video.uint8Array, 'first-last');
    assert.equal(frames.length, 48);
    const [a, b] = [await framed(first), await framed(last)];
    assert.ok(psnr(frames[0], a) >= 25, `first frame ${psnr(frames[0], a).toFixed(1)} dB`);
    assert.ok(psnr(frames[47], b) >= 25, `last frame ${psnr(frames[47], b).toFixed(1)} dB`);
  });

  it('input_references (an image and sound) with generate_audio: an AAC track', async () => {
    const { video } = await generateVideo({
      model: openrouter.videoModel(MODEL, { ...settings, generateAudio: true }),
      download,
      prompt: 'a valley at noon',
      duration: 2,
      aspectRatio: '16:9',
      resolution: '854x480',
      providerOptions: {
        openrouter: {
          input_references: [
            { type: 'image_url', image_url: { url: dataUrl(last) } },
            { type: 'audio_url', audio_url: { url: audioDataUri(await makeAudio(1)) } },
          ],
        },
      },
    });
    const { path } = await keep(video.uint8Array, 'references');
    const probe = await probeVideo(bins.ffprobe, path);
    assert.equal(probe.audioStreams, 1);
    assert.equal(probe.audio?.codec, 'aac');
  });

  it('generate_audio alone: an AAC track', async () => {
    const { video } = await generateVideo({
      model: openrouter.videoModel(MODEL, { ...settings, generateAudio: true }),
      download,
      prompt: 'rain on a tin roof',
      duration: 2,
      aspectRatio: '16:9',
      resolution: '854x480',
    });
    const { path } = await keep(video.uint8Array, 'sound');
    const probe = await probeVideo(bins.ffprobe, path);
    assert.equal(probe.audio?.codec, 'aac');
  });

  it('a refusal reaches the caller as the provider raises it: an APICallError naming the field', async () => {
    await assert.rejects(
      generateVideo({
        model: openrouter.videoModel('sora-2', settings),
        download,
        prompt: 'a slow push in',
        duration: 4,
        providerOptions: {
          openrouter: { frame_images: [frameImage(first, 'first_frame'), frameImage(last, 'last_frame')] },
        },
      }),
      (err: Error & { statusCode?: number; responseBody?: string }) => {
        assert.equal(err.statusCode, 400);
        const body = JSON.parse(err.responseBody ?? '{}');
        assert.equal(body.error.code, 'unsupported_input');
        assert.equal(body.error.param, 'frame_images[1]');
        return true;
      },
    );
  });
});
