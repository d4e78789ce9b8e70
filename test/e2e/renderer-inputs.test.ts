import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { resolveFfmpegBinaries } from '../../packages/server/src/media/ffmpeg-binaries.ts';
import { probeVideo } from '../../packages/server/src/media/video-probe.ts';
import { wavBytes } from '../../packages/server/src/generators/ffmpeg/sound/soundtrack.ts';
import { decodePcm } from '../../packages/server/test/support/audio-analysis.ts';
import { psnr } from '../../packages/server/test/support/colour-analysis.ts';
import { startEconomicsService, type EconomicsService } from './support/economics.ts';
import { api, finishedFamilyA, type Api } from './support/http.ts';
import { dataUri } from './support/images.ts';
import { picture } from './support/anchor-pictures.ts';

// The built-in renderer's inputs end to end: family A's own fields through a real server and its
// worker to the MP4 served back, measured there (docs/inputs.md): the first, key and last frames by
// PSNR against the pictures sent, framed as a first frame is; the AAC track by its correlation with
// the reference audio sent.
const run = promisify(execFile);
const bins = resolveFfmpegBinaries({});
const MODELS = {
  models: [
    {
      id: 'tiny-anchors',
      family: 'A',
      backend: 'renderer',
      resolution: '144p',
      durations: { min: 1, max: 5 },
      sound: { optional: true },
      inputs: { last_frame: true, keyframes: 2, reference_images: 2, reference_audios: 1 },
    },
  ],
};
const RATE = 48_000;

let svc: EconomicsService;
let client: Api;
let dir: string;

/** A 1.5 s chirp over a pulse train: nothing the renderer composes sounds like it. */
function chirp(): Float32Array {
  const mono = new Float32Array(1.5 * RATE);
  for (let i = 0; i < mono.length; i++) {
    const t = i / RATE;
    mono[i] = 0.3 * Math.sin(2 * Math.PI * (200 * t + 300 * t * t)) + 0.2 * Math.exp(-((t * 4) % 1) * 6);
  }
  return mono;
}

describe("the renderer's inputs through the API", () => {
  before(async () => {
    svc = await startEconomicsService(undefined, {}, MODELS);
    client = api(svc.url, await svc.account('renderer-inputs'));
    dir = await mkdtemp(join(tmpdir(), 'vidgen-renderer-inputs-'));
  });
  after(async () => {
    await svc?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('family A: first frame, keyframe, last frame and reference audio, measured in the MP4 served back', async () => {
    const [first, key, last] = await Promise.all([
      picture('#1040c0', '#f0d020'),
      picture('#302020', '#e0e0f0'),
      picture('#c02040', '#20e0a0'),
    ]);
    const reference = chirp();
    const wav = `data:audio/wav;base64,${wavBytes({ left: reference, right: reference }).toString('base64')}`;
    const done = await finishedFamilyA(client, '/v1/videos/generations', {
      model: 'tiny-anchors',
      prompt: 'an abstract scene, pan right',
      duration: 2,
      seed: 3,
      generate_audio: true,
      image: { url: dataUri(first, 'image/png') },
      keyframes: [{ image: { url: dataUri(key, 'image/png') }, timestamp_s: 1 }],
      last_frame: { url: dataUri(last, 'image/png') },
      reference_audios: [{ url: wav }],
    });
    const file = join(dir, 'out.mp4');
    await writeFile(file, Buffer.from(await (await fetch(done.video.url)).arrayBuffer()));
    const probe = await probeVideo(bins.ffprobe, file);
    const { width, height } = probe;
    const { stdout } = await run(bins.ffmpeg, ['-v', 'error', '-i', file, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], {
      encoding: 'buffer',
      maxBuffer: 64 * 1024 * 1024,
    });
    const size = width * height * 3;
    const frames = stdout.length / size;
    const frame = (n: number) => stdout.subarray(n * size, (n + 1) * size);
    const framed = (png: Buffer) =>
      sharp(png).resize(width, height, { fit: 'cover', kernel: 'lanczos3' }).removeAlpha().raw().toBuffer();
    // The keyframe's frame: time 1 s of 2, on frames 0 .. frames - 1.
    for (const [name, n, png, floor] of [
      ['first', 0, first, 25],
      ['keyframe', Math.round((frames - 1) / 2), key, 22],
      ['last', frames - 1, last, 25],
    ] as const) {
      const db = psnr(frame(n), await framed(png));
      assert.ok(db >= floor, `${name} frame (${n} of ${frames}, ${width}x${height}): ${db.toFixed(1)} dB`);
    }
    // The sound's bed is the reference: past the fade-in and before the loop's seam, the track is it.
    assert.equal(probe.audio?.codec, 'aac');
    const pcm = await decodePcm(bins.ffmpeg, file);
    let ab = 0;
    let aa = 0;
    let bb = 0;
    for (let i = RATE / 10; i < RATE; i++) {
      ab += pcm.left[i] * reference[i];
      aa += pcm.left[i] ** 2;
      bb += reference[i] ** 2;
    }
    const correlation = ab / Math.sqrt(aa * bb);
    assert.ok(correlation > 0.9, `correlation with the reference audio ${correlation.toFixed(3)}`);
  });
});
