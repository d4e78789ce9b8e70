import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { experimental_generateVideo as generateVideo } from 'ai';
import { createXai } from '@ai-sdk/xai';
import { startTestService, type TestService } from './support/service.ts';
import { makeAudio } from './support/audio.ts';
import { resolveFfmpegBinaries } from '../../packages/server/src/media/ffmpeg-binaries.ts';
import { probeVideo } from '../../packages/server/src/media/video-probe.ts';
import { psnr } from '../../packages/server/test/support/colour-analysis.ts';
import { picture, framed as framedAt } from './support/anchor-pictures.ts';

// The Vercel AI SDK with `@ai-sdk/xai` 5.0.12, unmodified, against a real server: its `frameImages`
// become `image` and `last_frame`, `providerOptions.xai.keyframes` become `keyframes`, and its
// `inputReferences` become `reference_images` and `reference_audios` (node_modules/@ai-sdk/xai
// dist/index.js, buildRequestBody). The MP4 it downloads is checked itself: first, last and key
// frames by PSNR against the pictures sent, framed as the renderer frames them, and an AAC track
// where sound was asked for. The package declares Node 22; it runs on 20.
const run = promisify(execFile);
const bins = resolveFfmpegBinaries({});
const [W, H] = [854, 480];
const MODEL = 'grok-imagine-video-1.5';
/**
 * The SDK's documented `download` option: its default refuses loopback addresses, and this server
 * listens on 127.0.0.1. The link it fetches is the poll's signed `video.url`, with no key.
 */
const download = async ({ url }: { url: URL }) => {
  const res = await fetch(url);
  return { data: new Uint8Array(await res.arrayBuffer()), mediaType: res.headers.get('content-type') ?? undefined };
};

const framed = (png: Buffer) => framedAt(png, W, H);

describe('the AI SDK with @ai-sdk/xai 5.0.12: frames, keyframes and references', () => {
  let svc: TestService;
  let dir: string;
  let xai: ReturnType<typeof createXai>;
  let first: Buffer;
  let last: Buffer;
  let key: Buffer;

  before(async () => {
    svc = await startTestService();
    dir = await mkdtemp(join(tmpdir(), 'vidgen-ai-xai-'));
    xai = createXai({ apiKey: await svc.createKey('ai-sdk-xai'), baseURL: `${svc.url}/v1` });
    [first, last, key] = await Promise.all([
      picture('#1040c0', '#f0d020'),
      picture('#c02040', '#20e0a0'),
      picture('#302020', '#e0e0f0'),
    ]);
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

  it('frameImages first and last: the video starts on the first picture and ends on the last (>= 25 dB)', async () => {
    const { video } = await generateVideo({
      model: xai.video(MODEL),
      download,
      prompt: 'a slow push in',
      duration: 2,
      aspectRatio: '16:9',
      frameImages: [
        { image: first, frameType: 'first_frame' },
        { image: last, frameType: 'last_frame' },
      ],
      providerOptions: { xai: { resolution: '480p', pollIntervalMs: 200 } },
    });
    const { frames } = await keep(video.uint8Array, 'first-last');
    assert.equal(frames.length, 48);
    const [a, b] = [await framed(first), await framed(last)];
    assert.ok(psnr(frames[0], a) >= 25, `first frame ${psnr(frames[0], a).toFixed(1)} dB`);
    assert.ok(psnr(frames[47], b) >= 25, `last frame ${psnr(frames[47], b).toFixed(1)} dB`);
  });

  it('keyframes in the provider options: the frame at the time is the picture (>= 22 dB)', async () => {
    const { video } = await generateVideo({
      model: xai.video(MODEL),
      download,
      prompt: 'pan right across the scene',
      duration: 2,
      aspectRatio: '16:9',
      frameImages: [{ image: first, frameType: 'first_frame' }],
      providerOptions: {
        xai: {
          resolution: '480p',
          pollIntervalMs: 200,
          keyframes: [{ imageUrl: `data:image/png;base64,${key.toString('base64')}`, timestampSeconds: 1 }],
        },
      },
    });
    const { frames } = await keep(video.uint8Array, 'keyframe');
    // The anchor's frame: round(t / duration × (frames - 1)) (docs/inputs.md).
    const at = Math.round((1 / 2) * (frames.length - 1));
    const k = await framed(key);
    assert.ok(psnr(frames[at], k) >= 22, `keyframe ${psnr(frames[at], k).toFixed(1)} dB`);
  });

  it('inputReferences with images and audio: reference_images and reference_audios, and an AAC track', async () => {
    const { video } = await generateVideo({
      model: xai.video(MODEL),
      download,
      prompt: 'a valley at noon',
      duration: 2,
      aspectRatio: '16:9',
      generateAudio: true,
      inputReferences: [
        { data: first, mediaType: 'image/png' },
        { data: key, mediaType: 'image/png' },
        { data: await makeAudio(1), mediaType: 'audio/wav' },
      ],
      providerOptions: { xai: { resolution: '480p', pollIntervalMs: 200 } },
    });
    const { path } = await keep(video.uint8Array, 'references');
    const probe = await probeVideo(bins.ffprobe, path);
    assert.equal(probe.audioStreams, 1);
    assert.equal(probe.audio?.codec, 'aac');
  });
});
