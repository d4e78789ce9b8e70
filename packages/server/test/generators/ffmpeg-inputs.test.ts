/**
 * The built-in renderer's inputs beyond the first frame, measured in the MP4 it writes: first, last
 * and key frames by PSNR against the pictures framed as sharp frames them, the references' palette
 * by the ΔE of dominant colours, and the reference audio by correlation in the decoded track.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { FfmpegRenderer } from '../../src/generators/ffmpeg/ffmpeg-renderer.ts';
import { frameAt } from '../../src/generators/ffmpeg/render-inputs.ts';
import { FrameMixer, packedPlanes, type PlaneMix } from '../../src/generators/ffmpeg/frame-colour.ts';
import { TARGET_LUFS, wavBytes } from '../../src/generators/ffmpeg/sound/soundtrack.ts';
import { seamOf } from '../../src/generators/ffmpeg/sound/reference-bed.ts';
import { TaskFailure } from '../../src/domain/task-failure.ts';
import { memoryCheckpoint, type GenerationJob, type JobInput } from '../../src/generators/generator.ts';
import { measureLoudness } from '../../src/media/audio-loudness.ts';
import { resolveFfmpegBinaries } from '../../src/media/ffmpeg-binaries.ts';
import { decodePcm } from '../support/audio-analysis.ts';
import { dominantColours, meanDistanceTo, psnr } from '../support/colour-analysis.ts';

const run = promisify(execFile);
const bins = resolveFfmpegBinaries({});
const renderer = new FfmpegRenderer({ ffmpeg: bins.ffmpeg, threads: 2 });
const W = 320;
const H = 180;
let dir: string;
const pictures: Record<string, string> = {};

/** A photo-like test picture: a gradient, two shapes, grain; 400x300, so framing crops it. */
async function picture(name: string, a: string, b: string): Promise<string> {
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300"><defs><linearGradient id="g">` +
    `<stop offset="0" stop-color="${a}"/><stop offset="1" stop-color="${b}"/></linearGradient></defs>` +
    `<rect width="400" height="300" fill="url(#g)"/><circle cx="130" cy="150" r="70" fill="${b}"/>` +
    `<rect x="240" y="50" width="100" height="170" fill="${a}" stroke="#ffffff" stroke-width="8"/></svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let state = 7;
  for (let i = 0; i < data.length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    data[i] = Math.max(0, Math.min(255, data[i] + ((state >>> 24) % 13) - 6));
  }
  const path = join(dir, `${name}.png`);
  await sharp(data, { raw: info }).png().toFile(path);
  return path;
}

/** The picture as a first frame is framed: cover-fitted to the output, centred, lanczos3. */
async function framed(path: string): Promise<Buffer> {
  return sharp(path).resize(W, H, { fit: 'cover', kernel: 'lanczos3' }).removeAlpha().raw().toBuffer();
}

function job(prompt: string, inputs: JobInput[], extra: Partial<GenerationJob> = {}): GenerationJob {
  const first = inputs.find((i) => i.role === 'first_frame');
  return {
    taskId: 'inputs',
    attempt: 1,
    kind: 'generate',
    prompt,
    width: W,
    height: H,
    duration: 2,
    fps: 24,
    seed: 5,
    images: first ? [first.path] : [],
    inputs,
    ...extra,
  };
}

async function render(j: GenerationJob): Promise<string> {
  const workDir = await mkdtemp(join(dir, 'job-'));
  const ctx = {
    signal: new AbortController().signal,
    stopReason: () => undefined,
    onProgress: () => {},
    workDir,
    checkpoint: memoryCheckpoint(),
  };
  return (await renderer.generate(j, ctx)).path;
}

/** Every decoded frame, as packed RGB. */
async function decodedFrames(video: string): Promise<Buffer[]> {
  const { stdout } = await run(bins.ffmpeg, ['-v', 'error', '-i', video, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], {
    encoding: 'buffer',
    maxBuffer: 256 * 1024 * 1024,
  });
  const size = W * H * 3;
  return Array.from({ length: stdout.length / size }, (_, i) => stdout.subarray(i * size, (i + 1) * size));
}

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => assert.fail('the render succeeded'),
    (err: unknown) => err,
  );

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vidgen-inputs-'));
  pictures.a = await picture('a', '#1040c0', '#f0d020');
  pictures.b = await picture('b', '#c02040', '#20e0a0');
  pictures.c = await picture('c', '#302020', '#e0e0f0');
  pictures.warm = await picture('warm', '#e05a10', '#7a1f6a');
  pictures.sand = await picture('sand', '#f2c070', '#b03018');
});
after(() => rm(dir, { recursive: true, force: true }));

describe('the mix kernel', () => {
  it('is the plain fixed-point mix, byte for byte, clamped at both ends, with and without B', () => {
    // Odd plane sizes (not multiples of 16): the kernel's padded steps must not spill into a result.
    const size = { width: 70, height: 38 };
    const bytes = (size.width * size.height * 3) / 2;
    let state = 3;
    const noise = () =>
      Buffer.from(Array.from({ length: bytes }, () => (state = (state * 1103515245 + 12345) >>> 0) >>> 24));
    const [a, b] = [noise(), noise()];
    const mixer = new FrameMixer(size);
    const mixes: PlaneMix[] = [
      { a: [1, 1, 1], b: [0, 0, 0], c: [0, 0, 0] },
      { a: [0.5, 0.25, 2.5], b: [0.5, 0.75, 0.4], c: [0, -120.3, 40.7] },
      { a: [2.5, 0.1, 0.7], b: [2.5, 0, 0.2], c: [-600, 300, -0.5] },
    ];
    for (const mix of mixes) {
      for (const to of [b, undefined]) {
        const out = Buffer.alloc(bytes);
        mixer.mix(out, mix, a, to);
        for (const [p, [offset, length]] of packedPlanes(size).entries()) {
          const [fa, fb, c] = [
            Math.round(mix.a[p] * 256),
            to ? Math.round(mix.b[p] * 256) : 0,
            Math.round(mix.c[p] * 256) + 128,
          ];
          for (let i = offset; i < offset + length; i++) {
            const want = Math.max(0, Math.min(255, (fa * a[i] + fb * (to ?? a)[i] + c) >> 8));
            assert.equal(out[i], want, `plane ${p}, byte ${i - offset}`);
          }
        }
      }
    }
  });
});

describe('first and last frame', () => {
  for (const prompt of ['pan right across the scene', 'slow zoom in', 'zoom out to reveal the valley', 'static shot']) {
    it(`"${prompt}": starts exactly on the first picture and ends exactly on the last (PSNR >= 25 dB)`, async () => {
      const inputs: JobInput[] = [
        { role: 'first_frame', path: pictures.a },
        { role: 'last_frame', path: pictures.b },
      ];
      const frames = await decodedFrames(await render(job(prompt, inputs)));
      assert.equal(frames.length, 48);
      const [a, b] = [await framed(pictures.a), await framed(pictures.b)];
      assert.ok(psnr(frames[0], a) >= 25, `first frame ${psnr(frames[0], a).toFixed(1)} dB`);
      assert.ok(psnr(frames[47], b) >= 25, `last frame ${psnr(frames[47], b).toFixed(1)} dB`);
      // In between it travels: the middle frame is neither picture, and each frame changes a little.
      assert.ok(psnr(frames[24], a) < 20 && psnr(frames[24], b) < 20, 'the middle frame is a transition');
      for (let n = 1; n < 48; n++) assert.ok(psnr(frames[n], frames[n - 1]) > 14, `a jump at frame ${n}`);
    });
  }

  it('the same inputs and seed make the same video', async () => {
    const j = job('pan left, handheld', [
      { role: 'first_frame', path: pictures.a },
      { role: 'last_frame', path: pictures.b },
    ]);
    const [one, two] = [await render(j), await render(j)];
    assert.deepEqual(await readFile(one), await readFile(two));
  });
});

describe('keyframes', () => {
  it('each keyframe is the frame at its time (PSNR >= 22 dB), between first and last frames', async () => {
    const inputs: JobInput[] = [
      { role: 'first_frame', path: pictures.a },
      { role: 'keyframe', path: pictures.c, atSeconds: 0.7 },
      { role: 'keyframe', path: pictures.b, atSeconds: 1.4 },
      { role: 'last_frame', path: pictures.a },
    ];
    const j = job('pan right', inputs, { duration: 2.5 });
    const frames = await decodedFrames(await render(j));
    assert.equal(frames.length, 60);
    for (const input of inputs) {
      const at = input.role === 'keyframe' ? input.atSeconds! : input.role === 'first_frame' ? 0 : 2.5;
      const n = frameAt(at, j);
      const db = psnr(frames[n], await framed(input.path));
      assert.ok(db >= 22, `${input.role} at ${at} s (frame ${n}): ${db.toFixed(1)} dB`);
    }
  });

  it('without a first frame the scene opens, and after the last keyframe the camera carries on', async () => {
    const j = job('a lake at dawn, pan left', [{ role: 'keyframe', path: pictures.c, atSeconds: 1 }]);
    const frames = await decodedFrames(await render(j));
    const c = await framed(pictures.c);
    const n = frameAt(1, j);
    assert.ok(psnr(frames[n], c) >= 22, `keyframe ${psnr(frames[n], c).toFixed(1)} dB`);
    assert.ok(psnr(frames[0], c) < 18, 'the first frame is the scene');
    assert.ok(psnr(frames[47], c) < psnr(frames[n], c) - 3, 'the camera moved on after the keyframe');
  });
});

describe('reference images', () => {
  const prompt = 'a green valley with a river at noon';
  /** Five dominant colours over frames sampled through the video. */
  const videoColours = async (file: string) => {
    const frames = await decodedFrames(file);
    return dominantColours([0, 12, 24, 36, 47].map((n) => frames[n]));
  };

  it("the scene takes the references' palette: mean ΔE76 of the five dominant colours drops >= 30 %", async () => {
    const refs = [pictures.warm, pictures.sand];
    const palette = dominantColours(await Promise.all(refs.map(framed)));
    const plain = meanDistanceTo(await videoColours(await render(job(prompt, []))), palette);
    const inputs = refs.map((path): JobInput => ({ role: 'reference_image', path }));
    const shaped = meanDistanceTo(await videoColours(await render(job(prompt, inputs))), palette);
    assert.ok(shaped <= 0.7 * plain, `ΔE without references ${plain.toFixed(1)}, with ${shaped.toFixed(1)}`);
  });

  it('with a first frame, the first frame stays exact while the references grade what follows', async () => {
    const inputs: JobInput[] = [
      { role: 'first_frame', path: pictures.a },
      { role: 'reference_image', path: pictures.warm },
    ];
    const withRefs = await decodedFrames(await render(job('slow zoom in', inputs)));
    const without = await decodedFrames(await render(job('slow zoom in', inputs.slice(0, 1))));
    assert.ok(psnr(withRefs[0], await framed(pictures.a)) >= 25);
    const palette = dominantColours([await framed(pictures.warm)]);
    const [graded, plain] = [withRefs, without].map((f) => meanDistanceTo(dominantColours([f[47]]), palette));
    assert.ok(graded < plain, `last frame ΔE with references ${graded.toFixed(1)}, without ${plain.toFixed(1)}`);
  });
});

describe('reference audio', () => {
  const rate = 48_000;
  /** A reference no prompt could compose: a chirp under a decaying pulse train, 1.5 s. */
  async function referenceWav(seconds: number): Promise<{ path: string; mono: Float32Array }> {
    const n = Math.round(seconds * rate);
    const mono = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      const t = i / rate;
      mono[i] = 0.3 * Math.sin(2 * Math.PI * (200 * t + 300 * t * t)) + 0.2 * Math.exp(-((t * 4) % 1) * 6);
    }
    const path = join(dir, `reference-${seconds}.wav`);
    await writeFile(path, wavBytes({ left: mono, right: mono }));
    return { path, mono };
  }
  const correlation = (a: Float32Array, b: Float32Array) => {
    let ab = 0;
    let aa = 0;
    let bb = 0;
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      ab += a[i] * b[i];
      aa += a[i] * a[i];
      bb += b[i] * b[i];
    }
    return ab / Math.sqrt(aa * bb);
  };

  it('a short reference is the bed, looped to the length, at the target loudness', async () => {
    const ref = await referenceWav(1.5);
    const file = await render(
      job('an abstract scene', [{ role: 'reference_audio', path: ref.path }], { audio: true, duration: 4 }),
    );
    const pcm = await decodePcm(bins.ffmpeg, file);
    assert.ok(Math.abs(pcm.left.length - 4 * rate) <= rate / 24, `track of ${pcm.left.length} samples`);
    const L = ref.mono.length;
    const seam = seamOf(L, L);
    // First pass (past the fade-in, before the first seam), then the first repeat after its seam.
    const first = correlation(pcm.left.subarray(rate / 10, L - seam), ref.mono.subarray(rate / 10, L - seam));
    const again = correlation(pcm.left.subarray(L, 2 * L - 2 * seam), ref.mono.subarray(seam, L - seam));
    assert.ok(first > 0.9 && again > 0.9, `correlation ${first.toFixed(3)}, after the loop ${again.toFixed(3)}`);
    const lufs = await measureLoudness(bins.ffmpeg, file);
    assert.ok(Math.abs(lufs - TARGET_LUFS) <= 1, `integrated loudness ${lufs} LUFS`);
  });

  it("a long reference is cut to the length; the prompt's named sounds play over it", async () => {
    const ref = await referenceWav(3);
    const plain = await decodePcm(
      bins.ffmpeg,
      await render(job('an abstract scene', [{ role: 'reference_audio', path: ref.path }], { audio: true })),
    );
    assert.ok(correlation(plain.left.subarray(rate / 10, 2 * rate - rate / 10), ref.mono.subarray(rate / 10)) > 0.9);
    const rain = await decodePcm(
      bins.ffmpeg,
      await render(job('rain on a window', [{ role: 'reference_audio', path: ref.path }], { audio: true })),
    );
    const withRain = correlation(rain.left.subarray(rate / 10, 2 * rate - rate / 10), ref.mono.subarray(rate / 10));
    assert.ok(withRain > 0.7 && withRain < 0.99, `correlation under rain ${withRain.toFixed(3)}`);
  });
});

describe('inputs it refuses', () => {
  it('declares every role but a reference video', () => {
    assert.deepEqual(renderer.inputsFor(), [
      {
        first_frame: true,
        last_frame: true,
        keyframes: 8,
        reference_images: 8,
        reference_audios: 3,
        reference_videos: 0,
        exclusive: [],
      },
    ]);
  });

  for (const [name, inputs, extra] of [
    ['a reference video', [{ role: 'reference_video', path: '/nonexistent.mp4' }], {}],
    ['a reference audio without sound', [{ role: 'reference_audio', path: '/nonexistent.wav' }], { audio: false }],
    ['a keyframe past the end', [{ role: 'keyframe', path: '/nonexistent.png', atSeconds: 2 }], {}],
  ] as Array<[string, JobInput[], Partial<GenerationJob>]>) {
    it(`${name}: invalid_input, nothing rendered`, async () => {
      const err = await failureOf(render(job('a lake', inputs, extra)));
      assert.ok(err instanceof TaskFailure && err.code === 'invalid_input', String(err));
    });
  }
});
