import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { generatorContract, samplePicture } from '../../src/generators/generator.contract.ts';
import { FfmpegRenderer } from '../../src/generators/ffmpeg/ffmpeg-renderer.ts';
import {
  cameraPath,
  easeInOut,
  parseCameraMove,
  viewAt,
  type CameraMoveKind,
} from '../../src/generators/ffmpeg/camera-move.ts';
import { buildSceneSvg } from '../../src/generators/ffmpeg/scene-svg.ts';
import { sceneTheme } from '../../src/generators/ffmpeg/scene-theme.ts';
import { seededRandom } from '../../src/generators/ffmpeg/seeded-random.ts';
import { hexToRgb } from '../../src/generators/ffmpeg/color.ts';
import { createKernels } from '../../src/generators/ffmpeg/bilinear-kernels.ts';
import { FrameResampler } from '../../src/generators/ffmpeg/frame-resampler.ts';
import { planeLayout, rgbToYuv420 } from '../../src/generators/ffmpeg/yuv-canvas.ts';
import { resolveFfmpegBinaries } from '../../src/media/ffmpeg-binaries.ts';
import { TaskFailure } from '../../src/domain/task-failure.ts';
import { toTaskFailure } from '../../src/engine/to-task-failure.ts';
import { memoryCheckpoint, type GenerationJob } from '../../src/generators/generator.ts';
import { OutputRejected, probeVideo, verifyVideo } from '../../src/media/video-probe.ts';

const run = promisify(execFile);
const bins = resolveFfmpegBinaries({});
// Fixed threads: x264's output depends on its thread count, and the contract checks determinism.
const renderer = () => new FfmpegRenderer({ ffmpeg: bins.ffmpeg, threads: 2 });
const context = (workDir: string) => ({
  signal: new AbortController().signal,
  stopReason: () => undefined,
  onProgress: () => {},
  workDir,
  checkpoint: memoryCheckpoint(),
});

generatorContract('ffmpeg renderer', async () => ({ generator: renderer(), ffprobe: bins.ffprobe }));

describe('camera move parsing', () => {
  const cases: Array<[string, CameraMoveKind]> = [
    ['a lighthouse, zoom in slowly', 'push-in'],
    ['Slow push-in on a cabin', 'push-in'],
    ['dolly in towards the door', 'push-in'],
    ['zoom into the city', 'push-in'],
    ['zoom out to reveal the valley', 'pull-back'],
    ['the camera pulls back from the crowd', 'pull-back'],
    ['pan left across the harbour', 'pan-left'],
    ['panning to the right over fields', 'pan-right'],
    ['tilt up to the sky', 'tilt-up'],
    ['pan down to the river', 'tilt-down'],
    ['static shot of a vase', 'static'],
    ['birds moving in the sky', 'push-in'],
    ['a cat on a sofa', 'push-in'],
  ];
  for (const [prompt, kind] of cases) {
    it(`"${prompt}" -> ${kind}`, () => assert.equal(parseCameraMove(prompt).kind, kind));
  }

  it('takes the first move named and reads speed words', () => {
    assert.deepEqual(parseCameraMove('pan left, then zoom in'), { kind: 'pan-left', speed: 'normal' });
    assert.equal(parseCameraMove('a quick zoom out').speed, 'fast');
    assert.equal(parseCameraMove('gently pan right').speed, 'slow');
    assert.deepEqual(parseCameraMove('a mountain lake'), { kind: 'push-in', speed: 'slow' });
  });
});

describe('camera path', () => {
  const kinds: CameraMoveKind[] = ['push-in', 'pull-back', 'pan-left', 'pan-right', 'tilt-up', 'tilt-down', 'static'];

  it('starts and ends exactly on the path, at rest', () => {
    assert.equal(easeInOut(0), 0);
    assert.equal(easeInOut(1), 1);
    assert.ok(easeInOut(0.01) < 0.001 && 1 - easeInOut(0.99) < 0.001);
    const path = cameraPath({ kind: 'push-in', speed: 'normal' }, 5);
    assert.deepEqual(viewAt(path, 0), path.from);
    assert.ok(Math.abs(viewAt(path, 1).zoom - path.to.zoom) < 1e-12);
  });

  it('moves the way each move is named', () => {
    const p = (kind: CameraMoveKind) => cameraPath({ kind, speed: 'normal' }, 5);
    assert.ok(p('push-in').to.zoom > p('push-in').from.zoom);
    assert.ok(p('pull-back').to.zoom < p('pull-back').from.zoom);
    assert.ok(p('pan-left').to.cx < p('pan-left').from.cx);
    assert.ok(p('pan-right').to.cx > p('pan-right').from.cx);
    assert.ok(p('tilt-up').to.cy < p('tilt-up').from.cy);
    assert.ok(p('tilt-down').to.cy > p('tilt-down').from.cy);
    assert.deepEqual(p('static').from, p('static').to);
  });

  it('never shows beyond the canvas, for any speed and duration', () => {
    for (const kind of kinds) {
      for (const speed of ['slow', 'normal', 'fast'] as const) {
        for (const duration of [1, 5, 15]) {
          const path = cameraPath({ kind, speed }, duration);
          for (let t = 0; t <= 1; t += 0.05) {
            const v = viewAt(path, t);
            const half = 1 / (2 * v.zoom);
            assert.ok(
              v.zoom >= 1 &&
                v.cx - half >= -1e-9 &&
                v.cx + half <= 1 + 1e-9 &&
                v.cy - half >= -1e-9 &&
                v.cy + half <= 1 + 1e-9,
              `${kind}/${speed}/${duration}s at t=${t.toFixed(2)} leaves the canvas`,
            );
          }
        }
      }
    }
  });

  it('moves further in longer clips', () => {
    const short = cameraPath({ kind: 'push-in', speed: 'normal' }, 1);
    const long = cameraPath({ kind: 'push-in', speed: 'normal' }, 10);
    assert.ok(long.to.zoom > short.to.zoom);
  });
});

describe('frame resampler', () => {
  it('matches plain two-pass bilinear sampling exactly, on every plane', () => {
    const rnd = seededRandom('resampler');
    const canvas = { width: 236, height: 130, data: Uint8Array.from({ length: 236 * 130 * 3 }, () => rnd.int(0, 255)) };
    const output = { width: 180, height: 100 };
    const planes = planeLayout(canvas.width, canvas.height, 0);
    const source = new Uint8Array(planes.end);
    rgbToYuv420(canvas.data, canvas.width, planes.planes, source);
    const resampler = new FrameResampler(createKernels(), canvas, output);
    for (const view of [
      { cx: 0.5, cy: 0.5, zoom: 1 },
      { cx: 0.43, cy: 0.55, zoom: 1.23 },
      { cx: 0.6, cy: 0.41, zoom: 1.31 },
    ]) {
      const frame = resampler.frame(view);
      let at = 0;
      planes.planes.forEach((src, p) => {
        const [w, h, s, o] =
          p === 0 ? [output.width, output.height, 1, 0] : [output.width / 2, output.height / 2, 2, 0.5];
        const map = (c: number, canvasPx: number, outPx: number, u: number) => {
          const k = canvasPx / (view.zoom * outPx);
          const left = c * canvasPx - (k * outPx) / 2 + 0.5 * k - 0.5;
          const pos = (left + (s * u + o) * k - o) / s;
          const size = p === 0 ? canvasPx : canvasPx / 2;
          if (pos <= 0) return [0, 0];
          if (pos >= size - 1) return [size - 2, 256];
          return [Math.floor(pos), Math.round((pos - Math.floor(pos)) * 256)];
        };
        const mix = (a: number, b: number, wt: number) => (a * (256 - wt) + b * wt + 128) >> 8;
        for (let v = 0; v < h; v++) {
          const [y0, wy] = map(view.cy, canvas.height, output.height, v);
          for (let u = 0; u < w; u++, at++) {
            const [x0, wx] = map(view.cx, canvas.width, output.width, u);
            const row = (y: number) =>
              mix(source[src.offset + y * src.stride + x0], source[src.offset + y * src.stride + x0 + 1], wx);
            assert.equal(frame[at], mix(row(y0), row(y0 + 1), wy), `plane ${p} pixel ${u},${v} of zoom ${view.zoom}`);
          }
        }
      });
    }
  });
});

describe('scene svg', () => {
  const svg = (prompt: string, seed?: number) => buildSceneSvg({ prompt, seed, width: 480, height: 270 });

  it('is the same for the same prompt and seed, different otherwise', () => {
    assert.equal(svg('sunset over the ocean', 3), svg('sunset over the ocean', 3));
    assert.equal(svg('Sunset  over the OCEAN', 3), svg('sunset over the ocean', 3));
    assert.notEqual(svg('sunset over the ocean', 3), svg('sunset over the ocean', 4));
    assert.notEqual(svg('sunset over the ocean', 3), svg('a forest at night', 3));
  });

  it('takes its look from the prompt words', () => {
    const theme = (prompt: string) => sceneTheme(prompt, seededRandom(prompt));
    const blue = (hex: string) => {
      const [r, g, b] = hexToRgb(hex);
      return b > r && b > g;
    };
    const green = (hex: string) => {
      const [r, g, b] = hexToRgb(hex);
      return g > r && g > b;
    };
    assert.equal(theme('waves on the sea').terrain, 'ocean');
    assert.ok(blue(theme('waves on the sea').water[1]));
    assert.equal(theme('sunset over the ocean').time, 'sunset');
    assert.ok(hexToRgb(theme('sunset over the ocean').sky[2])[0] > 200, 'a sunset horizon is warm');
    assert.ok(theme('a starry night').stars);
    assert.ok(green(theme('a jungle').ground[3]));
    assert.equal(theme('a city skyline').terrain, 'city');
    assert.equal(theme('snow in winter').terrain, 'snow');
    assert.equal(theme('desert dunes').terrain, 'desert');
    assert.equal(theme('a lake in a forest').terrain, 'ocean');
    assert.notDeepEqual(theme('velvet echoes').sky, theme('quiet arithmetic').sky);
  });

  it('is valid SVG that renders', async () => {
    for (const prompt of [
      'sunset over the ocean',
      'a city at night',
      'a planet in space',
      'snowy mountains',
      'velvet echoes',
    ]) {
      const meta = await sharp(Buffer.from(svg(prompt)))
        .png()
        .toBuffer({ resolveWithObject: true });
      assert.equal(meta.info.width, 480);
    }
  });
});

describe('ffmpeg renderer motion', () => {
  let dir: string;
  let picture: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vidgen-renderer-'));
    picture = join(dir, 'picture.png');
    await writeFile(picture, await samplePicture(640, 480));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const render = async (prompt: string, images: string[], size = { width: 320, height: 180 }, duration = 1) => {
    const workDir = await mkdtemp(join(dir, 'job-'));
    const job: GenerationJob = {
      taskId: 't',
      attempt: 1,
      kind: 'generate',
      prompt,
      ...size,
      duration,
      fps: 24,
      seed: 1,
      images,
    };
    const out = await renderer().generate(job, context(workDir));
    return { path: out.path, job };
  };

  it('pans left (the picture slides right) and zooms in (off-centre detail moves outwards)', async () => {
    const marker = async (prompt: string) => {
      const { path, job } = await render(prompt, [picture]);
      return [markerX(await frameRgb(path, 0, job)), markerX(await frameRgb(path, job.duration - 1.5 / job.fps, job))];
    };
    const [panFirst, panLast] = await marker('pan left');
    assert.ok(panLast > panFirst + 3, `pan: marker moved from ${panFirst} to ${panLast}`);
    const [zoomFirst, zoomLast] = await marker('zoom in');
    assert.ok(zoomFirst < 160 && zoomLast < zoomFirst - 3, `zoom: marker moved from ${zoomFirst} to ${zoomLast}`);
  });

  it('moves smoothly, at sub-pixel steps, along the eased path', async () => {
    // A lone white disc on black: its luma centroid is the camera position, to a hundredth of a pixel.
    const disc = join(dir, 'disc.png');
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="640" height="360"><rect width="640" height="360"/><circle cx="250" cy="160" r="40" fill="#fff"/></svg>';
    await writeFile(disc, await sharp(Buffer.from(svg)).png().toBuffer());
    const { path, job } = await render('pan left', [disc]);
    const frames = Math.round(job.duration * job.fps);
    const { stdout } = await run(
      bins.ffmpeg,
      ['-v', 'error', '-i', path, '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1'],
      { encoding: 'buffer', maxBuffer: 1e8 },
    );
    const area = job.width * job.height;
    assert.equal(stdout.length, area * frames);
    const xs = Array.from({ length: frames }, (_, f) => {
      let sum = 0;
      let weight = 0;
      for (let i = 0; i < area; i++) {
        const w = Math.max(0, stdout[f * area + i] - 16);
        sum += w * (i % job.width);
        weight += w;
      }
      return sum / weight;
    });
    const travel = xs[frames - 1] - xs[0];
    assert.ok(travel > 10, `the disc travelled ${travel} px`);
    // Whole-pixel cropping (zoompan) would be off by up to a pixel per frame; encoder noise stays far below.
    for (let f = 1; f < frames; f++) {
      const ideal = travel * (easeInOut(f / (frames - 1)) - easeInOut((f - 1) / (frames - 1)));
      const step = xs[f] - xs[f - 1];
      assert.ok(Math.abs(step - ideal) < 0.3, `frame ${f}: moved ${step.toFixed(2)} px, expected ${ideal.toFixed(2)}`);
    }
  });

  it('writes sample frames to test-output/frames for a person to look at', async () => {
    const framesDir = fileURLToPath(new URL('../../../../test-output/frames/', import.meta.url));
    await mkdir(framesDir, { recursive: true });
    const size = { width: 640, height: 360 };
    const photo = join(dir, 'photo.png');
    await writeFile(photo, await photoLike(960, 640));
    const samples: Array<[string, string, string[]]> = [
      ['zoom-in', 'zoom in on the lake', [photo]],
      ['pan-left', 'pan left across the lake', [photo]],
      ['sunset-over-the-ocean', 'sunset over the ocean', []],
    ];
    for (const [name, prompt, images] of samples) {
      const { path, job } = await render(prompt, images, size, 2);
      for (const [label, t] of [
        ['start', 0],
        ['middle', job.duration / 2],
        ['end', job.duration - 1.5 / job.fps],
      ] as const) {
        await run(bins.ffmpeg, [
          '-v',
          'error',
          '-y',
          '-ss',
          String(t),
          '-i',
          path,
          '-frames:v',
          '1',
          join(framesDir, `${name}-${label}.png`),
        ]);
      }
    }
  });
});

describe('video verification', () => {
  let dir: string;
  let video: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vidgen-verify-'));
    const job: GenerationJob = {
      taskId: 't',
      attempt: 1,
      kind: 'generate',
      prompt: 'hills',
      width: 320,
      height: 180,
      duration: 1,
      fps: 24,
      images: [],
    };
    video = (await renderer().generate(job, context(dir))).path;
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const refuses = async (file: string, expect: Parameters<typeof verifyVideo>[2], pattern: RegExp) => {
    // media refuses with its own error; the engine's one mapping makes it the task's failure.
    const refused = await verifyVideo(bins.ffprobe, file, expect).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(refused instanceof OutputRejected, 'expected an OutputRejected');
    const err = toTaskFailure(refused);
    assert.ok(err instanceof TaskFailure, 'expected a TaskFailure');
    assert.equal(err.code, 'invalid_output');
    assert.equal(err.retryable, false);
    assert.match(err.message, pattern);
    assert.ok(!err.message.includes(dir), 'the message must not reveal the path');
  };

  it('accepts the exact video and reports what it is', async () => {
    const probe = await verifyVideo(bins.ffprobe, video, { width: 320, height: 180, durationSeconds: 1 });
    assert.deepEqual([probe.codec, probe.pixelFormat, probe.frames], ['h264', 'yuv420p', 24]);
    assert.equal((await probeVideo(bins.ffprobe, video)).width, 320);
  });

  it('refuses a wrong size, a wrong duration, an empty file and a non-video', async () => {
    await refuses(video, { width: 640, height: 360, durationSeconds: 1 }, /320x180, expected 640x360/);
    await refuses(video, { width: 320, height: 180, durationSeconds: 2 }, /lasts 1\.00 s, expected 2 s/);
    const empty = join(dir, 'empty.mp4');
    await writeFile(empty, Buffer.alloc(0));
    await refuses(empty, { width: 320, height: 180, durationSeconds: 1 }, /empty/);
    const text = join(dir, 'text.mp4');
    await writeFile(text, 'not a video at all');
    await refuses(text, { width: 320, height: 180, durationSeconds: 1 }, /not a readable video|no video stream/);
  });

  it('allows one frame plus 50 ms of duration slack, no more', async () => {
    await verifyVideo(bins.ffprobe, video, { width: 320, height: 180, durationSeconds: 1 + 1 / 24 + 0.04 });
    await refuses(video, { width: 320, height: 180, durationSeconds: 1 + 1 / 24 + 0.06 }, /lasts/);
  });
});

it('uses the bundled ffmpeg and ffprobe unless overridden, and ignores empty overrides', () => {
  assert.deepEqual(resolveFfmpegBinaries({ ffmpeg: '/opt/ffmpeg', ffprobe: '' }), {
    ffmpeg: '/opt/ffmpeg',
    ffprobe: bins.ffprobe,
  });
});

/** A photo-like input: a drawn landscape with grain and a lens's softness, in another aspect ratio. */
async function photoLike(width: number, height: number): Promise<Buffer> {
  const svg = buildSceneSvg({ prompt: 'a mountain lake with a forest in the evening', seed: 5, width, height });
  const { data, info } = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let state = 9;
  for (let i = 0; i < data.length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    data[i] = Math.max(0, Math.min(255, data[i] + ((state >>> 24) % 17) - 8));
  }
  return sharp(data, { raw: info }).blur(0.6).png().toBuffer();
}

/** One decoded frame as packed RGB. */
async function frameRgb(video: string, seconds: number, job: GenerationJob): Promise<Buffer> {
  const { stdout } = await run(
    bins.ffmpeg,
    [
      '-v',
      'error',
      '-ss',
      String(seconds),
      '-i',
      video,
      '-frames:v',
      '1',
      '-f',
      'rawvideo',
      '-pix_fmt',
      'rgb24',
      'pipe:1',
    ],
    { encoding: 'buffer', maxBuffer: job.width * job.height * 3 + 1024 },
  );
  assert.equal(stdout.length, job.width * job.height * 3, `frame at ${seconds}s of ${video}: ${stdout.length}`);
  return stdout;
}

/** Mean x of the sample picture's red marker. */
function markerX(rgb: Buffer): number {
  const width = 320;
  let sum = 0;
  let count = 0;
  for (let i = 0; i < rgb.length; i += 3) {
    if (rgb[i] > 140 && rgb[i + 1] < 90 && rgb[i + 2] < 90) {
      sum += (i / 3) % width;
      count++;
    }
  }
  assert.ok(count > 10, 'the marker is not visible');
  return sum / count;
}
