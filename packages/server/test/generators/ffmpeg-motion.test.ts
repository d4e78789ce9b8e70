import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { samplePicture } from '../../src/generators/generator.contract.ts';
import { FfmpegRenderer } from '../../src/generators/ffmpeg/ffmpeg-renderer.ts';
import {
  cameraPath,
  parseCameraMotion,
  parseCameraMove,
  viewAt,
  type CameraMotion,
  type CameraView,
} from '../../src/generators/ffmpeg/camera-move.ts';
import { extensionCanvasScale, planExtensionShot, planShot } from '../../src/generators/ffmpeg/camera-shot.ts';
import { seededRandom } from '../../src/generators/ffmpeg/seeded-random.ts';
import { buildSceneSvg } from '../../src/generators/ffmpeg/scene-svg.ts';
import { sceneParticles } from '../../src/generators/ffmpeg/scene-particles.ts';
import { resolveFfmpegBinaries } from '../../src/media/ffmpeg-binaries.ts';
import { memoryCheckpoint, type GenerationJob } from '../../src/generators/generator.ts';

const run = promisify(execFile);
const bins = resolveFfmpegBinaries({});
const renderer = () => new FfmpegRenderer({ ffmpeg: bins.ffmpeg, threads: 2 });
const rnd = () => seededRandom('test');

describe('camera motion parsing: moves combine', () => {
  const cases: Array<[string, Omit<CameraMotion, 'speed'>]> = [
    ['zoom in while panning left', { zoom: 'in', pan: 'left' }],
    ['slowly dolly out and tilt up to the sky', { zoom: 'out', tilt: 'up' }],
    ['pan right and tilt down over the city', { pan: 'right', tilt: 'down' }],
    ['orbit around the lighthouse', { orbit: 'right' }],
    ['the camera circles around the statue counter-clockwise', { orbit: 'left' }],
    ['a sweeping arc shot to the left, zooming in', { zoom: 'in', orbit: 'left' }],
    ['handheld shot of a market', { shake: 'handheld' }],
    ['handheld shake, pan left', { pan: 'left', shake: 'handheld' }],
    ['violent camera shake, earthquake', { shake: 'strong' }],
    ['static shot of a vase', {}],
    ['a cat on a sofa', { zoom: 'in' }],
    ['birds moving in the sky', { zoom: 'in' }],
  ];
  for (const [prompt, expected] of cases) {
    it(`"${prompt}"`, () => {
      const { speed: _speed, ...motion } = parseCameraMotion(prompt);
      assert.deepEqual(motion, expected);
    });
  }

  it('reads speed words for the whole motion, and keeps the single-move parser as it was', () => {
    assert.equal(parseCameraMotion('a quick zoom in and pan right').speed, 'fast');
    assert.equal(parseCameraMotion('a cat on a sofa').speed, 'slow');
    assert.deepEqual(parseCameraMove('pan left, then zoom in'), { kind: 'pan-left', speed: 'normal' });
  });
});

describe('camera shots', () => {
  const prompts = [
    'zoom in while panning left',
    'zoom out and tilt up',
    'pan right and tilt down',
    'orbit around',
    'fast orbit to the left while zooming in',
    'handheld',
    'violent camera shake',
    'static shot',
    'a slow push in',
    'dolly out, pan left, handheld',
  ];
  const inside = (v: CameraView) => {
    const hx = 1 / (2 * v.zoom);
    const hy = 1 / (2 * (v.zoomY ?? v.zoom));
    return (
      v.zoom >= 1 - 1e-9 && v.cx - hx >= -1e-9 && v.cx + hx <= 1 + 1e-9 && v.cy - hy >= -1e-9 && v.cy + hy <= 1 + 1e-9
    );
  };

  it('never shows beyond the canvas, for any move, speed and length', () => {
    for (const prompt of prompts) {
      for (const duration of [1, 5, 15]) {
        const shot = planShot(parseCameraMotion(prompt), duration, rnd());
        for (let t = 0; t <= 1.0001; t += 0.01)
          assert.ok(inside(shot.viewAt(t)), `${prompt}/${duration}s at ${t.toFixed(2)}`);
        assert.ok(shot.maxZoom <= 1.6, `${prompt}: canvas ${shot.maxZoom}`);
      }
    }
  });

  it('gives a single move exactly the path it always had', () => {
    for (const [prompt, kind] of [
      ['pan left', 'pan-left'],
      ['zoom in', 'push-in'],
      ['tilt up', 'tilt-up'],
      ['zoom out', 'pull-back'],
    ] as const) {
      const legacy = cameraPath({ kind, speed: 'normal' }, 5);
      const shot = planShot(parseCameraMotion(prompt), 5, rnd());
      for (const t of [0, 0.3, 0.77, 1]) {
        const [a, b] = [viewAt(legacy, t), shot.viewAt(t)];
        assert.ok(
          Math.abs(a.cx - b.cx) < 1e-12 && Math.abs(a.cy - b.cy) < 1e-12 && Math.abs(a.zoom - b.zoom) < 1e-12,
          `${prompt} at ${t}`,
        );
      }
    }
  });

  it('combines: zooming in while panning left closes in and travels left, starting and ending at rest', () => {
    const shot = planShot(parseCameraMotion('zoom in while panning left'), 5, rnd());
    const [start, end] = [shot.viewAt(0), shot.viewAt(1)];
    assert.ok(end.zoom > start.zoom * 1.1 && end.cx < start.cx - 0.04);
    const speed = (t: number) =>
      Math.hypot(shot.viewAt(t + 0.001).cx - shot.viewAt(t).cx, shot.viewAt(t + 0.001).zoom - shot.viewAt(t).zoom);
    assert.ok(speed(0) < speed(0.5) / 50 && speed(0.999) < speed(0.5) / 50, 'eased at both ends');
  });

  it('orbits on an arc: sideways travel, closest mid-way', () => {
    const shot = planShot(parseCameraMotion('orbit around to the right'), 5, rnd());
    assert.ok(shot.viewAt(1).cx > shot.viewAt(0).cx + 0.04);
    assert.ok(shot.viewAt(0.5).zoom > shot.viewAt(0).zoom * 1.05 && shot.viewAt(0.5).zoom > shot.viewAt(1).zoom * 1.05);
  });

  it('shakes the same way for the same seed, another way for another, and more when asked', () => {
    const jitter = (prompt: string, seed: string) => {
      const shot = planShot(parseCameraMotion(prompt), 3, seededRandom(seed));
      return Array.from({ length: 60 }, (_, i) => shot.viewAt(i / 59).cx);
    };
    assert.deepEqual(jitter('handheld', 'a'), jitter('handheld', 'a'));
    assert.notDeepEqual(jitter('handheld', 'a'), jitter('handheld', 'b'));
    const spread = (xs: number[]) => Math.max(...xs) - Math.min(...xs);
    assert.ok(spread(jitter('violent camera shake', 'a')) > 2 * spread(jitter('handheld', 'a')));
    assert.ok(spread(jitter('handheld', 'a')) > 0.002, 'a handheld camera moves');
  });

  it('extensions start exactly on the frame, at rest, for every move', () => {
    for (const prompt of prompts) {
      const motion = parseCameraMotion(prompt);
      const scale = extensionCanvasScale(motion, 3);
      const frameZoom = { x: scale, y: scale * 1.001 };
      const shot = planExtensionShot(motion, 3, rnd(), frameZoom);
      const first = shot.viewAt(0);
      assert.deepEqual(
        [first.cx, first.cy, first.zoom, first.zoomY ?? first.zoom],
        [0.5, 0.5, frameZoom.x, scale > 1 ? frameZoom.y : 1],
        prompt,
      );
      const drift = Math.abs(shot.viewAt(0.01).cx - 0.5) + Math.abs(shot.viewAt(0.01).zoom - first.zoom);
      assert.ok(drift < 0.001, `${prompt}: moved ${drift} in the first 1%`);
      for (let t = 0; t <= 1.0001; t += 0.02) assert.ok(inside(shot.viewAt(t)), `${prompt} at ${t}`);
    }
    assert.ok(extensionCanvasScale(parseCameraMotion('zoom out'), 3) > 1.05, 'a pull-back needs room beyond the frame');
    assert.equal(extensionCanvasScale(parseCameraMotion('pan left'), 3), 1);
  });
});

describe('text-to-video variety and life', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vidgen-t2v-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const render = async (prompt: string, seed: number | undefined, size = { width: 320, height: 180 }, duration = 1) => {
    const workDir = await mkdtemp(join(dir, 'job-'));
    const job: GenerationJob = {
      taskId: 't',
      attempt: 1,
      kind: 'generate',
      prompt,
      ...size,
      duration,
      fps: 24,
      seed,
      images: [],
    };
    return (
      await renderer().generate(job, {
        signal: new AbortController().signal,
        stopReason: () => undefined,
        onProgress: () => {},
        workDir,
        checkpoint: memoryCheckpoint(),
      })
    ).path;
  };
  const sha = async (file: string) =>
    createHash('sha256')
      .update(await readFile(file))
      .digest('hex');

  it('the same prompt and seed give the same video; another seed another scene; no seed is seed 0', async () => {
    const a = await sha(await render('a forest lake at dawn', 7));
    assert.equal(await sha(await render('a forest lake at dawn', 7)), a);
    assert.notEqual(await sha(await render('a forest lake at dawn', 8)), a);
    assert.equal(
      await sha(await render('a forest lake at dawn', undefined)),
      await sha(await render('a forest lake at dawn', 0)),
    );
    // The seed changes the picture itself, not only its grain: palette and horizon move.
    assert.notEqual(
      buildSceneSvg({ prompt: 'hills', seed: 1, width: 64, height: 36 })
        .match(/stop-color="[^"]+"/g)
        ?.join(),
      buildSceneSvg({ prompt: 'hills', seed: 2, width: 64, height: 36 })
        .match(/stop-color="[^"]+"/g)
        ?.join(),
    );
  });

  it('scenes have something moving even under a still camera', async () => {
    const path = await render('static shot of snow falling on a village at night', 3);
    const { stdout } = await run(
      bins.ffmpeg,
      ['-v', 'error', '-i', path, '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1'],
      { encoding: 'buffer', maxBuffer: 1e8 },
    );
    const area = 320 * 180;
    let changed = 0;
    for (let i = 0; i < area; i++) if (Math.abs(stdout[i] - stdout[20 * area + i]) > 20) changed++;
    assert.ok(changed > 30, `${changed} pixels changed between frames 0 and 20`);
    assert.equal(
      sceneParticles('a city at night', 1, { width: 320, height: 180 }),
      undefined,
      'a night city stays still',
    );
  });

  it('writes sample frames to test-output/frames for a person to look at', async () => {
    const framesDir = fileURLToPath(new URL('../../../../test-output/frames/', import.meta.url));
    await mkdir(framesDir, { recursive: true });
    const photo = join(dir, 'photo.png');
    await writeFile(photo, await samplePicture(960, 640));
    const samples: Array<[string, string, string[], number | undefined]> = [
      ['combined-zoom-in-pan-left', 'zoom in while panning left', [photo], undefined],
      ['orbit', 'orbit around the hills', [photo], undefined],
      ['handheld-tilt-up', 'handheld, tilt up', [photo], undefined],
      ['t2v-snowy-village-seed-1', 'snow falling on a quiet village at night', [], 1],
      ['t2v-snowy-village-seed-2', 'snow falling on a quiet village at night', [], 2],
      ['t2v-forest-lake-seed-5', 'a forest lake, slow pan right', [], 5],
    ];
    for (const [name, prompt, images, seed] of samples) {
      const workDir = await mkdtemp(join(dir, 'job-'));
      const job: GenerationJob = {
        taskId: 't',
        attempt: 1,
        kind: 'generate',
        prompt,
        width: 640,
        height: 360,
        duration: 2,
        fps: 24,
        seed,
        images,
      };
      const { path } = await renderer().generate(job, {
        signal: new AbortController().signal,
        stopReason: () => undefined,
        onProgress: () => {},
        workDir,
        checkpoint: memoryCheckpoint(),
      });
      for (const [label, t] of [
        ['start', 0],
        ['middle', 1],
        ['end', 2 - 1.5 / 24],
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
