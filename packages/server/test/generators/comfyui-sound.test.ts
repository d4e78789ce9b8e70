import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { TaskFailure } from '../../src/domain/task-failure.ts';
import { memoryCheckpoint, type GenerationJob } from '../../src/generators/generator.ts';
import { ComfyUiGenerator } from '../../src/generators/comfyui/comfyui-generator.ts';
import { ComfyUiHostPool } from '../../src/generators/comfyui/comfyui-host-pool.ts';
import { loadPreset } from '../../src/generators/comfyui/workflow-presets.ts';
import { maxVideoBitrate, normalizeVideo } from '../../src/generators/comfyui/output-video.ts';
import type { ComfyUiWorkflows } from '../../src/generators/comfyui/render-plan.ts';
import { resolveFfmpegBinaries } from '../../src/media/ffmpeg-binaries.ts';
import { probeVideo, verifyVideo } from '../../src/media/video-probe.ts';
import { ComfyUiStandIn } from '../support/comfyui-standin/comfyui-standin.ts';

const run = promisify(execFile);
const bins = resolveFfmpegBinaries({});

// ComfyUI and sound: a workflow whose SaveVideo writes audio keeps it when the task asks for sound,
// a preset says whether it makes sound, and the output step bounds the file's size.
describe('comfyui sound and size', () => {
  let standIn: ComfyUiStandIn;
  let wan: ComfyUiWorkflows;
  let dir: string;
  before(async () => {
    wan = await loadPreset('wan2.2-ti2v-5b');
    standIn = await ComfyUiStandIn.start({ ffmpeg: bins.ffmpeg });
    dir = await mkdtemp(join(tmpdir(), 'vidgen-comfy-sound-'));
    // The weightless "model" of sound: a 6 s tone, uploaded to the host's input folder like an image.
    await run(bins.ffmpeg, [
      ...['-v', 'error', '-f', 'lavfi', '-i', 'sine=f=330:r=44100:d=6', '-ac', '2'],
      ...['-y', join(standIn.dirs.input, 'tone.wav')],
    ]);
  });
  after(async () => {
    await standIn.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** The Wan preset's graph with a LoadAudio feeding CreateVideo's `audio`, as LTX-2's joint audio does. */
  const withTone = (file = 'tone.wav'): ComfyUiWorkflows => {
    const graphs = [wan.textToVideo!, wan.imageToVideo!].map((workflow) => {
      const graph = structuredClone(workflow) as Record<string, { class_type: string; inputs: any }>;
      graph['90'] = { class_type: 'LoadAudio', inputs: { audio: file } };
      const create = Object.values(graph).find((n) => n.class_type === 'CreateVideo')!;
      create.inputs.audio = ['90', 0];
      return graph;
    });
    return { ...wan, textToVideo: graphs[0], imageToVideo: graphs[1], sound: true };
  };
  const generate = async (
    workflows: ComfyUiWorkflows,
    audio: boolean,
    shape = { width: 256, height: 144, duration: 2 },
    images: string[] = [],
  ) => {
    const generator = new ComfyUiGenerator({
      pool: new ComfyUiHostPool([{ name: 'gpu', url: standIn.url }], { requestTimeoutMs: 3000 }),
      workflows,
      ffmpeg: bins.ffmpeg,
      ffprobe: bins.ffprobe,
      preset: 'ultrafast',
      timings: { pollMs: 100, socketPollMs: 1000, unreachableGraceMs: 1000 },
    });
    const job: GenerationJob = {
      ...{ taskId: `t-${Math.random()}`, attempt: 1, kind: 'generate', prompt: 'a tone', ...shape },
      ...{ fps: 24, seed: 3, images, audio },
    };
    const workDir = await mkdtemp(join(dir, 'job-'));
    const ctx = {
      signal: new AbortController().signal,
      stopReason: () => undefined,
      onProgress: () => {},
      workDir,
      checkpoint: memoryCheckpoint(),
    };
    return (await generator.generate(job, ctx)).path;
  };

  it('keeps the workflow’s sound, cut to the picture’s length, when the task asks for it', async () => {
    const out = await generate(withTone(), true);
    const probe = await verifyVideo(
      bins.ffprobe,
      out,
      { width: 256, height: 144, durationSeconds: 2, audio: true },
      bins.ffmpeg,
    );
    assert.equal(probe.audio?.codec, 'aac');
    assert.equal(probe.audio?.channels, 2);
  });

  // 256x256 and 49 frames are what Wan renders (sides of 32, 4n+1 frames): the host's file is exact,
  // and from a flat first frame it is small enough to be kept as it is.
  const exact = { width: 256, height: 256, duration: 49 / 24 };
  const flat = async () => {
    const png = join(dir, 'flat.png');
    await run(bins.ffmpeg, [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'color=c=0x336699:s=256x256',
      '-frames:v',
      '1',
      '-y',
      png,
    ]);
    return [png];
  };
  const audioOf = async (file: string) => (await probeVideo(bins.ffprobe, file)).audio!;
  /** The MP4 the stand-in's SaveVideo wrote last, and its picture's packets (md5 of a stream copy). */
  const hostFile = async () => {
    const files = (await readdir(standIn.dirs.output, { recursive: true })).filter((f) => f.endsWith('.mp4'));
    const dated = await Promise.all(
      files.map(async (f) => ({ f, at: (await stat(join(standIn.dirs.output, f))).mtimeMs })),
    );
    return join(standIn.dirs.output, dated.sort((a, b) => b.at - a.at)[0].f);
  };
  const pictureMd5 = async (file: string) =>
    (await run(bins.ffmpeg, ['-v', 'error', '-i', file, '-map', '0:v', '-c', 'copy', '-f', 'md5', '-'])).stdout;

  it('an exact render with sound shorter than its picture: the picture kept, the sound padded to it at 48 kHz', async () => {
    await run(bins.ffmpeg, [
      ...['-v', 'error', '-f', 'lavfi', '-i', 'sine=f=330:r=44100:d=1', '-ac', '2'],
      ...['-y', join(standIn.dirs.input, 'tone-1s.wav')],
    ]);
    const out = await generate(withTone('tone-1s.wav'), true, exact, await flat());
    // What a real SaveVideo writes: the input's rate, and the sound left as short as it was.
    const host = await hostFile();
    const saved = await audioOf(host);
    assert.equal(saved.sampleRate, 44100);
    assert.ok(Math.abs(saved.durationSeconds - 1) < 0.03, `host sound ${saved.durationSeconds} s`);
    const probe = await verifyVideo(
      bins.ffprobe,
      out,
      { ...exact, durationSeconds: exact.duration, audio: true },
      bins.ffmpeg,
    );
    assert.equal(probe.audio?.sampleRate, 48000);
    assert.equal(probe.audio?.channels, 2);
    assert.equal(await pictureMd5(out), await pictureMd5(host));
  });

  it('an exact render with longer sound: the host cuts it to ceil(rate / fps × frames), vidgen resamples it', async () => {
    const out = await generate(withTone(), true, exact, await flat());
    const saved = await audioOf(await hostFile());
    assert.equal(saved.sampleRate, 44100);
    assert.ok(Math.abs(saved.durationSeconds - 49 / 24) < 0.03, `host sound ${saved.durationSeconds} s`);
    const probe = await verifyVideo(
      bins.ffprobe,
      out,
      { ...exact, durationSeconds: exact.duration, audio: true },
      bins.ffmpeg,
    );
    assert.equal(probe.audio?.sampleRate, 48000);
  });

  it('drops it when the task does not ask for sound', async () => {
    const out = await generate(withTone(), false);
    assert.equal((await probeVideo(bins.ffprobe, out)).audioStreams, 0);
  });

  it('a preset without sound refuses a task that asks for it, for good', async () => {
    assert.equal(wan.sound, false);
    await assert.rejects(generate(wan, true), (err: unknown) => {
      assert.ok(err instanceof TaskFailure);
      assert.equal(err.retryable, false);
      assert.match(err.message, /silent videos only/);
      return true;
    });
  });

  it('bounds the size of a noisy output to the renderer’s quality (CRF 23 under a rate ceiling)', async () => {
    // What a random-weights model saves: noise at 1280x704 in CRF 23 x264 (as SaveVideo does); 2 s keeps it quick.
    const source = join(dir, 'noise.mp4');
    await run(bins.ffmpeg, [
      ...['-v', 'error', '-f', 'lavfi', '-i', 'nullsrc=s=1280x704:r=24:d=2', '-vf', 'noise=alls=60:allf=t+u'],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '23', '-pix_fmt', 'yuv420p', '-y', source],
    ]);
    const before = (await stat(source)).size;
    const target = { width: 1280, height: 720, fps: 24, frames: 48 };
    const out = await normalizeVideo(source, target, {
      ...{ ffmpeg: bins.ffmpeg, ffprobe: bins.ffprobe, preset: 'ultrafast' },
      ...{ signal: new AbortController().signal, onProgress: () => {} },
    });
    const after = (await stat(out)).size;
    // The rate over the clip, plus the one-second buffer x264 may fill ahead of it (-bufsize).
    const ceiling = (maxVideoBitrate(target) * (2 + 1)) / 8;
    console.log(
      `# noise 2 s 1280x704: ${(before / 1e6).toFixed(1)} MB from the host, ${(after / 1e6).toFixed(2)} MB after (ceiling ${(ceiling / 1e6).toFixed(2)} MB)`,
    );
    assert.ok(after <= ceiling * 1.1, `${after} bytes, ceiling ${ceiling}`);
    assert.ok(before > 4 * after);
  });
});
