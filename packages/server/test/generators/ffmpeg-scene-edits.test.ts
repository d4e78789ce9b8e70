import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { FfmpegRenderer } from '../../src/generators/ffmpeg/ffmpeg-renderer.ts';
import { parseEdit } from '../../src/generators/ffmpeg/edit-plan.ts';
import { resolveFfmpegBinaries } from '../../src/media/ffmpeg-binaries.ts';
import { checkVideoFile } from '../../src/media/video-input.ts';
import { probeVideo } from '../../src/media/video-probe.ts';
import { memoryCheckpoint, type GenerationJob, type InputVideo } from '../../src/generators/generator.ts';

const run = promisify(execFile);
const bins = resolveFfmpegBinaries({});
const size = { width: 320, height: 180 };

/** Mean R, G, B, luma (BT.709), saturation (max − min) and the spread of luma over a few decoded frames. */
async function measure(file: string) {
  const { stdout } = await run(
    bins.ffmpeg,
    [
      '-v',
      'error',
      '-i',
      file,
      '-vf',
      'select=not(mod(n\\,6))',
      '-vsync',
      '0',
      '-f',
      'rawvideo',
      '-pix_fmt',
      'rgb24',
      '-',
    ],
    { encoding: 'buffer', maxBuffer: 64 << 20 },
  );
  const px = stdout.length / 3;
  let r = 0;
  let g = 0;
  let b = 0;
  let sat = 0;
  let y2 = 0;
  for (let i = 0; i < stdout.length; i += 3) {
    r += stdout[i];
    g += stdout[i + 1];
    b += stdout[i + 2];
    sat += Math.max(stdout[i], stdout[i + 1], stdout[i + 2]) - Math.min(stdout[i], stdout[i + 1], stdout[i + 2]);
    const y = 0.2126 * stdout[i] + 0.7152 * stdout[i + 1] + 0.0722 * stdout[i + 2];
    y2 += y * y;
  }
  const [R, G, B] = [r / px, g / px, b / px];
  const luma = 0.2126 * R + 0.7152 * G + 0.0722 * B;
  return { R, G, B, luma, sat: sat / px, spread: Math.sqrt(Math.max(0, y2 / px - luma * luma)) };
}

/** Green over magenta: how much the green channel stands above the mean of red and blue. */
const green = (m: { R: number; G: number; B: number }) => m.G - (m.R + m.B) / 2;

describe('everyday edits: time of day, season and weather on any video', () => {
  let dir: string;
  let upload: InputVideo;
  let before_: Awaited<ReturnType<typeof measure>>;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vidgen-scene-edits-'));
    // An upload, not a render of ours: ffmpeg's colour test pattern with sound, 2 s at 24 fps.
    const path = join(dir, 'upload.mp4');
    await run(bins.ffmpeg, [
      ...['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=s=320x180:r=24:d=2', '-f', 'lavfi', '-i', 'sine=f=440:d=2'],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', '-y', path],
    ]);
    const facts = await checkVideoFile((file, signal) => probeVideo(bins.ffprobe, file, signal), path);
    upload = {
      path,
      ...size,
      durationSeconds: facts.durationSeconds,
      frames: facts.frames,
      frameRate: facts.frameRate,
    };
    before_ = await measure(path);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const edit = async (prompt: string, audio = false, video = upload) => {
    const workDir = await mkdtemp(join(dir, 'job-'));
    const job: GenerationJob = {
      ...{ taskId: 't', attempt: 1, kind: 'edit', prompt, ...size, duration: video.durationSeconds, fps: 24 },
      ...{ images: [], video, audio },
    };
    const ctx = {
      signal: new AbortController().signal,
      stopReason: () => undefined,
      onProgress: () => {},
      workDir,
      checkpoint: memoryCheckpoint(),
    };
    const out = await new FfmpegRenderer({ ffmpeg: bins.ffmpeg, threads: 2 }).generate(job, ctx);
    const probe = await probeVideo(bins.ffprobe, out.path);
    assert.equal(probe.frames, video.frames, `${prompt}: keeps the frame count`);
    return { ...(await measure(out.path)), probe, path: out.path };
  };

  it('reads the words of the openai SDK’s remix and edit prompts', () => {
    assert.deepEqual(parseEdit('Same scene at night').scene, { time: 'night' });
    assert.deepEqual(parseEdit('Make it autumn').scene, { season: 'autumn' });
    assert.deepEqual(parseEdit('a snowy winter evening').scene, { time: 'dusk', season: 'winter', weather: 'snow' });
    assert.deepEqual(parseEdit('add some fog').scene, { weather: 'fog' });
  });

  // Each edit's documented effect on the mean colour (docs/renderer.md), measured on the upload.
  const cases: Array<[string, (a: typeof before_, b: typeof before_) => string | undefined]> = [
    [
      'Same scene at night',
      (a, b) => (b.luma <= a.luma * 0.7 && b.B - b.R > a.B - a.R + 5 ? undefined : 'darker, bluer'),
    ],
    ['at dusk', (a, b) => (b.luma <= a.luma * 0.85 && b.R - b.B > a.R - a.B + 10 ? undefined : 'darker, warmer')],
    ['at dawn', (a, b) => (b.R - b.B > a.R - a.B + 5 ? undefined : 'rosier')],
    ['Make it autumn', (a, b) => (b.R - b.B > a.R - a.B + 15 && b.G < a.G ? undefined : 'warmer, less green')],
    ['make it winter', (a, b) => (b.sat <= a.sat * 0.7 && b.B - b.R > a.B - a.R ? undefined : 'paler, colder')],
    [
      'make it spring',
      (a, b) => (b.luma >= a.luma * 1.02 && green(b) > green(a) + 3 ? undefined : 'brighter, greener'),
    ],
    ['add snow', (a, b) => (b.luma >= a.luma * 1.05 ? undefined : 'brighter')],
    ['make it rain', (a, b) => (b.luma <= a.luma * 0.95 && b.sat <= a.sat * 0.8 ? undefined : 'darker, greyer')],
    ['add fog', (a, b) => (b.spread <= a.spread * 0.6 && b.luma > a.luma ? undefined : 'flatter, paler')],
  ];
  for (const [prompt, check] of cases) {
    it(`"${prompt}" changes the mean colour as documented`, async () => {
      const after_ = await edit(prompt);
      const fault = check(before_, after_);
      const fmt = (m: typeof before_) =>
        `luma ${m.luma.toFixed(1)} R ${m.R.toFixed(1)} G ${m.G.toFixed(1)} B ${m.B.toFixed(1)} ` +
        `sat ${m.sat.toFixed(1)} spread ${m.spread.toFixed(1)}`;
      assert.equal(fault, undefined, `${prompt}: not ${fault}; before ${fmt(before_)}, after ${fmt(after_)}`);
    });
  }

  it('autumn, snow and rain are particles moving over a still upload; a grade alone stays still', async () => {
    const path = join(dir, 'still.mp4');
    await run(bins.ffmpeg, [
      ...['-v', 'error', '-f', 'lavfi', '-i', 'color=c=0x5078a0:s=320x180:r=24:d=2', '-f', 'lavfi', '-i', 'sine=d=2'],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', '-y', path],
    ]);
    const facts = await checkVideoFile((file, signal) => probeVideo(bins.ffprobe, file, signal), path);
    const still = {
      path,
      ...size,
      durationSeconds: facts.durationSeconds,
      frames: facts.frames,
      frameRate: facts.frameRate,
    };
    /** Pixels that change between frames 12 and 13 by more than 24 levels in some channel. */
    const moving = async (file: string) => {
      const { stdout } = await run(
        bins.ffmpeg,
        [
          '-v',
          'error',
          '-i',
          file,
          '-vf',
          'select=between(n\\,12\\,13)',
          '-vsync',
          '0',
          '-f',
          'rawvideo',
          '-pix_fmt',
          'rgb24',
          '-',
        ],
        { encoding: 'buffer', maxBuffer: 8 << 20 },
      );
      const half = stdout.length / 2;
      let changed = 0;
      for (let i = 0; i < half; i += 3)
        if ([0, 1, 2].some((c) => Math.abs(stdout[i + c] - stdout[half + i + c]) > 24)) changed++;
      return changed;
    };
    for (const prompt of ['Make it autumn', 'add snow', 'make it rain']) {
      const out = await edit(prompt, true, still);
      assert.equal(out.probe.audioStreams, 1, `${prompt}: the upload's sound is kept`);
      const changed = await moving(out.path);
      assert.ok(changed > 100, `${prompt}: ${changed} pixels move`);
    }
    assert.equal(await moving((await edit('make it winter', false, still)).path), 0);
  });
});
