import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { FfmpegRenderer } from '../../src/generators/ffmpeg/ffmpeg-renderer.ts';
import { isEmptyPlan, parseEdit } from '../../src/generators/ffmpeg/edit-plan.ts';
import { cropSize } from '../../src/generators/ffmpeg/edit-filters.ts';
import { mirrorPad } from '../../src/generators/ffmpeg/yuv-canvas.ts';
import { resolveFfmpegBinaries } from '../../src/media/ffmpeg-binaries.ts';
import { checkVideoFile } from '../../src/media/video-input.ts';
import { probeVideo } from '../../src/media/video-probe.ts';
import { expectedOutput, jobShape } from '../../src/engine/output-expectation.ts';
import { TaskFailure } from '../../src/domain/task-failure.ts';
import { memoryCheckpoint, stopReasonOf, type GenerationJob, type InputVideo } from '../../src/generators/generator.ts';
import { childPids } from '../../src/generators/generator.contract.ts';

const run = promisify(execFile);
const bins = resolveFfmpegBinaries({});
const renderer = () => new FfmpegRenderer({ ffmpeg: bins.ffmpeg, threads: 2 });

describe('edit prompts', () => {
  const cases: Array<[string, object]> = [
    ['make it black and white', { look: 'black-and-white' }],
    ['give it a warm colour grade', { look: 'warm' }],
    ['cooler tones', { look: 'cool' }],
    ['vintage film look', { look: 'vintage' }],
    ['teal and orange', { look: 'teal-orange' }],
    ['sepia, slightly blurred', { look: 'sepia', blur: 0.005 }],
    ['blur it heavily', { blur: 0.025 }],
    ['slow motion', { timing: { kind: 'slow', factor: 2 } }],
    ['quarter speed', { timing: { kind: 'slow', factor: 4 } }],
    ['time-lapse', { timing: { kind: 'fast', factor: 2 } }],
    ['play it at 3x speed', { timing: { kind: 'fast', factor: 3 } }],
    ['play it backwards', { timing: { kind: 'reverse' } }],
    ['crop to 9:16', { crop: 9 / 16 }],
    ['make it square', { crop: 1 }],
    ['reframe it vertical, in black and white', { look: 'black-and-white', crop: 9 / 16 }],
    ['more vivid and brighter', { adjust: ['vivid', 'brighter'] }],
  ];
  for (const [prompt, expected] of cases) {
    it(`"${prompt}"`, () => assert.deepEqual(parseEdit(prompt), { adjust: [], scene: {}, ...expected }));
  }

  it('names nothing for prompts without an edit, and does not take praise for a colour', () => {
    for (const prompt of ['a nice day at the beach', 'make it look cool', 'zoom in slowly'])
      assert.ok(isEmptyPlan(parseEdit(prompt)), prompt);
    assert.equal(parseEdit('crop to 9x16, 2x speed').crop, 9 / 16);
  });

  it('crops the largest centred region, even-sided', () => {
    assert.deepEqual(cropSize({ width: 1280, height: 720 }, 9 / 16), { width: 404, height: 720 });
    assert.deepEqual(cropSize({ width: 720, height: 1280 }, 16 / 9), { width: 720, height: 404 });
    assert.deepEqual(cropSize({ width: 640, height: 360 }, 1), { width: 360, height: 360 });
  });
});

describe('engine rules for edits and extensions', () => {
  const video: InputVideo = {
    path: 'x',
    width: 321,
    height: 181,
    durationSeconds: 4.5,
    frames: 108,
    frameRate: '24/1',
  };
  const params = { width: 0, height: 0, duration: 3, fps: 24 };
  const refused = (fn: () => unknown, pattern: RegExp) =>
    assert.throws(
      fn,
      (e: unknown) =>
        e instanceof TaskFailure && e.code === 'invalid_output' && !e.retryable && pattern.test(e.message),
    );

  it('shapes the job from the input: even sides, its rate, its length or the added seconds', () => {
    assert.deepEqual(jobShape('edit', params, video), { width: 320, height: 180, duration: 4.5, fps: 24 });
    assert.deepEqual(jobShape('extend', params, video), { width: 320, height: 180, duration: 3, fps: 24 });
    assert.deepEqual(jobShape('extend', params, { ...video, frameRate: '30000/1001' }).fps, 30000 / 1001);
  });

  it('an edit keeps the length and may only shrink; an extension keeps the size and adds exactly what was asked', () => {
    const edit = jobShape('edit', params, video);
    const extend = jobShape('extend', params, video);
    assert.deepEqual(expectedOutput('edit', edit, video, undefined), {
      width: 320,
      height: 180,
      durationSeconds: 4.5,
      fps: 24,
    });
    assert.deepEqual(expectedOutput('edit', edit, video, { width: 100, height: 180, durationSeconds: 4.5 }), {
      width: 100,
      height: 180,
      durationSeconds: 4.5,
      fps: 24,
    });
    assert.deepEqual(expectedOutput('extend', extend, video, undefined), {
      width: 320,
      height: 180,
      durationSeconds: 7.5,
      fps: 24,
    });
    refused(
      () => expectedOutput('edit', edit, video, { width: 320, height: 180, durationSeconds: 9 }),
      /changed the length/,
    );
    refused(
      () => expectedOutput('edit', edit, video, { width: 640, height: 180, durationSeconds: 4.5 }),
      /larger than the input/,
    );
    refused(
      () => expectedOutput('edit', edit, video, { width: 101, height: 180, durationSeconds: 4.5 }),
      /larger than the input/,
    );
    refused(
      () => expectedOutput('extend', extend, video, { width: 320, height: 180, durationSeconds: 4.5 }),
      /does not add the requested seconds/,
    );
    refused(
      () => expectedOutput('extend', extend, video, { width: 160, height: 90, durationSeconds: 7.5 }),
      /changed the size/,
    );
    refused(
      () =>
        expectedOutput('generate', { width: 320, height: 180, duration: 2, fps: 24 }, undefined, {
          width: 320,
          height: 180,
          durationSeconds: 3,
        }),
      /different video/,
    );
  });

  it('mirrors a frame into padding without repeating the edge', () => {
    // 4x2 luma 0..7, chroma 2x1 each; one pixel of padding would be odd, so two.
    const frame = Uint8Array.from([0, 1, 2, 3, 4, 5, 6, 7, 100, 101, 200, 201]);
    const padded = mirrorPad(frame, { width: 4, height: 2 }, { x: 2, y: 0 });
    assert.equal(padded.width, 8);
    assert.deepEqual([...padded.yuv420.subarray(0, 8)], [1, 0, 0, 1, 2, 3, 3, 2]);
    assert.deepEqual([...padded.yuv420.subarray(16, 20)], [100, 100, 101, 101]);
  });
});

describe('ffmpeg renderer: edits and extensions', () => {
  let dir: string;
  let input: InputVideo;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vidgen-edits-'));
    // A generated clip, the usual input: a drawn scene with a camera move, 2 s at 24 fps.
    const source = await generate({
      kind: 'generate',
      prompt: 'sunset over the ocean, pan right',
      width: 320,
      height: 180,
      duration: 2,
      fps: 24,
      images: [],
    });
    const facts = await checkVideoFile((file, signal) => probeVideo(bins.ffprobe, file, signal), source.path);
    input = {
      path: source.path,
      width: facts.width,
      height: facts.height,
      durationSeconds: facts.durationSeconds,
      frames: facts.frames,
      frameRate: facts.frameRate,
    };
  });
  after(() => rm(dir, { recursive: true, force: true }));

  async function generate(job: Omit<GenerationJob, 'taskId' | 'attempt'>) {
    const workDir = await mkdtemp(join(dir, 'job-'));
    return renderer().generate(
      { taskId: 't', attempt: 1, ...job },
      {
        signal: new AbortController().signal,
        stopReason: () => undefined,
        onProgress: () => {},
        workDir,
        checkpoint: memoryCheckpoint(),
      },
    );
  }
  const edit = (prompt: string) =>
    generate({
      kind: 'edit',
      prompt,
      width: 320,
      height: 180,
      duration: input.durationSeconds,
      fps: 24,
      images: [],
      video: input,
    });
  const extend = (prompt: string, seconds: number) =>
    generate({ kind: 'extend', prompt, width: 320, height: 180, duration: seconds, fps: 24, images: [], video: input });

  it('offers edits and extensions', () => {
    assert.deepEqual([...renderer().kinds], ['generate', 'edit', 'extend']);
  });

  it('an edit says what it made, and the file is exactly that', async () => {
    for (const prompt of ['black and white', 'crop to 1:1, slow motion', 'reverse, teal and orange']) {
      const out = await edit(prompt);
      const probe = await probeVideo(bins.ffprobe, out.path);
      assert.deepEqual([probe.width, probe.height, probe.frames], [out.expect!.width, out.expect!.height, 48], prompt);
      assert.equal(out.expect!.durationSeconds, input.durationSeconds);
    }
  });

  it('refuses a prompt with no edit, and inputs past its limits, for good', async () => {
    const err = await edit('a nice day at the beach').catch((e: unknown) => e);
    assert.ok(err instanceof TaskFailure && err.code === 'edit_not_understood' && !err.retryable);
    const big = await generate({
      kind: 'edit',
      prompt: 'sepia',
      width: 3840,
      height: 2160,
      duration: 2,
      fps: 24,
      images: [],
      video: { ...input, width: 3840, height: 2160 },
    }).catch((e: unknown) => e);
    assert.ok(big instanceof TaskFailure && big.code === 'video_unsupported', String(big));
    assert.match(big.message, /up to 30 s and 1080p/);
  });

  it('an extension is the input, then a move from its last frame, as one stream', async () => {
    const out = await extend('zoom out slowly', 1);
    const probe = await probeVideo(bins.ffprobe, out.path);
    assert.deepEqual([probe.width, probe.height, probe.frames, probe.pixelFormat], [320, 180, 72, 'yuv420p']);
    assert.deepEqual(out.expect, { width: 320, height: 180, durationSeconds: 3 });
  });

  it('stops an extension and an edit promptly when aborted, leaving no process behind', async () => {
    for (const [kind, prompt, duration] of [
      ['extend', 'zoom in', 10],
      ['edit', 'reverse it', input.durationSeconds],
    ] as const) {
      const before = await childPids();
      const controller = new AbortController();
      const workDir = await mkdtemp(join(dir, 'job-'));
      const job: GenerationJob = {
        taskId: 't',
        attempt: 1,
        kind,
        prompt,
        width: 320,
        height: 180,
        duration,
        fps: 24,
        images: [],
        video: input,
      };
      const err = await renderer()
        .generate(job, {
          signal: controller.signal,
          stopReason: stopReasonOf(controller.signal),
          onProgress: (p) => p > 0.2 && controller.abort(),
          workDir,
          checkpoint: memoryCheckpoint(),
        })
        .catch((e: unknown) => e);
      assert.ok(err instanceof TaskFailure && err.code === 'canceled', `${kind}: ${String(err)}`);
      await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(
        (await childPids()).filter((pid) => !before.includes(pid)),
        [],
        `${kind} left processes running`,
      );
    }
  });

  it('writes sample frames of edits and of an extension seam to test-output/frames', async () => {
    const framesDir = fileURLToPath(new URL('../../../../test-output/frames/', import.meta.url));
    await mkdir(framesDir, { recursive: true });
    const still = async (video: string, frame: number, name: string) =>
      run(bins.ffmpeg, [
        '-v',
        'error',
        '-y',
        '-i',
        video,
        '-vf',
        `select=eq(n\\,${frame})`,
        '-frames:v',
        '1',
        join(framesDir, `${name}.png`),
      ]);
    await still(input.path, 24, 'edit-input');
    for (const [name, prompt] of [
      ['edit-black-and-white', 'black and white'],
      ['edit-teal-orange', 'teal and orange'],
      ['edit-vintage-blur', 'vintage, slight blur'],
      ['edit-crop-9x16', 'crop to 9:16'],
    ]) {
      await still((await edit(prompt)).path, 24, name);
    }
    const ext = await extend('orbit around', 2);
    for (const [frame, label] of [
      [47, 'last-input-frame'],
      [48, 'first-new-frame'],
      [95, 'end'],
    ] as const)
      await still(ext.path, frame, `extension-orbit-${label}`);
    await writeFile(
      join(framesDir, 'README.txt'),
      'Sample frames written by the renderer tests; look at them after changing the renderer.\n',
    );
  });
});
