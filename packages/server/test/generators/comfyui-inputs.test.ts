import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { samplePicture } from '../../src/generators/generator.contract.ts';
import { TaskFailure } from '../../src/domain/task-failure.ts';
import { memoryCheckpoint, stopReasonOf, type GenerationJob, type JobInput } from '../../src/generators/generator.ts';
import { ComfyUiGenerator } from '../../src/generators/comfyui/comfyui-generator.ts';
import { ComfyUiHostPool } from '../../src/generators/comfyui/comfyui-host-pool.ts';
import { loadPreset } from '../../src/generators/comfyui/workflow-presets.ts';
import { workflowInputs } from '../../src/generators/comfyui/workflow-choice.ts';
import { promptIdFor } from '../../src/generators/comfyui/prompt-id.ts';
import { resolveFfmpegBinaries } from '../../src/media/ffmpeg-binaries.ts';
import { verifyVideo } from '../../src/media/video-probe.ts';
import type { ComfyUiStandIn } from '../support/comfyui-standin/comfyui-standin.ts';
import { standInsPerTest } from '../support/comfyui-standin/stand-ins-per-test.ts';

const bins = resolveFfmpegBinaries({});
const timings = { pollMs: 100, socketPollMs: 1000, unreachableGraceMs: 1000 };
type Graph = Record<string, { class_type: string; inputs: Record<string, unknown> }>;

describe('comfyui presets for several inputs', () => {
  let dir: string;
  /** Distinct pictures, so each upload can be told apart by its bytes. */
  const pictures: Record<string, string> = {};
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vidgen-comfyui-inputs-'));
    for (const [name, w] of [
      ['first', 320],
      ['last', 330],
      ['k1', 340],
      ['k2', 350],
      ['r1', 360],
      ['r2', 370],
      ['r3', 380],
    ] as const) {
      pictures[name] = join(dir, `${name}.png`);
      await writeFile(pictures[name], await samplePicture(w, 240));
    }
  });
  after(() => rm(dir, { recursive: true, force: true }));
  const host = standInsPerTest(bins.ffmpeg);

  const run = async (preset: string, s: ComfyUiStandIn, inputs: JobInput[]) => {
    const g = new ComfyUiGenerator({
      pool: new ComfyUiHostPool([{ name: 'gpu-1', url: s.url }], { requestTimeoutMs: 3000 }),
      workflows: await loadPreset(preset),
      ffmpeg: bins.ffmpeg,
      ffprobe: bins.ffprobe,
      preset: 'ultrafast',
      timings,
    });
    const job: GenerationJob = {
      taskId: randomUUID(),
      attempt: 1,
      kind: 'generate',
      prompt: 'a red kite over dunes',
      width: 160,
      height: 96,
      duration: 2,
      fps: 12,
      seed: 3,
      images: inputs.filter((i) => i.role === 'first_frame').map((i) => i.path),
      inputs,
    };
    const signal = new AbortController().signal;
    const ctx = {
      signal,
      stopReason: stopReasonOf(signal),
      workDir: await mkdtemp(join(dir, 'work-')),
      onProgress: () => undefined,
      checkpoint: memoryCheckpoint(),
    };
    return { job, result: g.generate(job, ctx) };
  };

  /** The graph the host ran, and a reader of the file a LoadImage linked from `node.input` loaded. */
  const received = (s: ComfyUiStandIn, job: GenerationJob) => {
    const entry = s.history.get(promptIdFor(job.taskId, job.attempt));
    assert.ok(entry, 'the host has no such prompt');
    const graph = entry.prompt[2] as Graph;
    const nodes = (type: string) => Object.values(graph).filter((n) => n.class_type === type);
    const loaded = async (link: unknown) => {
      const [id] = link as [string, number];
      assert.equal(graph[id].class_type, 'LoadImage');
      return readFile(join(s.dirs.input, String(graph[id].inputs.image)));
    };
    return { graph, nodes, loaded };
  };
  const bytes = (name: string) => readFile(pictures[name]);
  const verified = async (path: string, job: GenerationJob) =>
    verifyVideo(bins.ffprobe, path, {
      width: job.width,
      height: job.height,
      durationSeconds: job.duration,
      fps: job.fps,
    });

  it('Wan FLF2V: the first and last frames arrive as WanFirstLastFrameToVideo start_image and end_image', async () => {
    const s = await host();
    const { job, result } = await run('wan2.1-flf2v-14b', s, [
      { role: 'first_frame', path: pictures.first },
      { role: 'last_frame', path: pictures.last },
    ]);
    await verified((await result).path, job);
    const { nodes, loaded } = received(s, job);
    const [flf] = nodes('WanFirstLastFrameToVideo');
    assert.deepEqual(await loaded(flf.inputs.start_image), await bytes('first'));
    assert.deepEqual(await loaded(flf.inputs.end_image), await bytes('last'));
    assert.equal(s.stats.uploads.length, 2);
  });

  it('Wan FLF2V: a last frame alone leaves start_image unconnected, as the node allows', async () => {
    const s = await host();
    const { job, result } = await run('wan2.1-flf2v-14b', s, [{ role: 'last_frame', path: pictures.last }]);
    await verified((await result).path, job);
    const { nodes, loaded } = received(s, job);
    const [flf] = nodes('WanFirstLastFrameToVideo');
    assert.equal(flf.inputs.start_image, undefined);
    assert.deepEqual(await loaded(flf.inputs.end_image), await bytes('last'));
    assert.equal(nodes('LoadImage').length, 1);
  });

  it('LTX-Video: each keyframe is an LTXVAddGuide with its image and the frame of its time', async () => {
    const s = await host();
    const { job, result } = await run('ltxv-2b-keyframes', s, [
      { role: 'first_frame', path: pictures.first },
      { role: 'keyframe', path: pictures.k1, atSeconds: 0.5 },
      { role: 'keyframe', path: pictures.k2, atSeconds: 1.25 },
      { role: 'last_frame', path: pictures.last },
    ]);
    await verified((await result).path, job);
    const { graph, nodes, loaded } = received(s, job);
    const guides = nodes('LTXVAddGuide');
    assert.equal(guides.length, 4, 'the two empty keyframe slots are taken out');
    // The model renders at 24 fps: 0.5 s is frame 12, 1.25 s frame 30; the last frame is -1.
    assert.deepEqual(
      guides.map((g) => g.inputs.frame_idx),
      [0, 12, 30, -1],
    );
    const images = await Promise.all(guides.map((g) => loaded(g.inputs.image)));
    assert.deepEqual(images, await Promise.all(['first', 'k1', 'k2', 'last'].map(bytes)));
    // The chain stays whole: each guide takes the conditioning and latent of the one before.
    const [a, b] = Object.entries(graph).filter(([, n]) => n.class_type === 'LTXVAddGuide');
    assert.deepEqual(b[1].inputs.latent, [a[0], 2]);
  });

  it('LTX-Video: one keyframe without a first frame chains from the empty latent', async () => {
    const s = await host();
    const { job, result } = await run('ltxv-2b-keyframes', s, [{ role: 'keyframe', path: pictures.k1, atSeconds: 1 }]);
    await verified((await result).path, job);
    const { graph, nodes } = received(s, job);
    const [guide] = nodes('LTXVAddGuide');
    assert.equal(nodes('LTXVAddGuide').length, 1);
    assert.equal(guide.inputs.frame_idx, 24);
    assert.equal(graph[(guide.inputs.latent as [string])[0]].class_type, 'EmptyLTXVLatentVideo');
  });

  it('Wan Phantom: the reference images arrive, in order, as the WanPhantomSubjectToVideo images batch', async () => {
    const s = await host();
    const { job, result } = await run('wan2.1-phantom-14b', s, [
      { role: 'reference_image', path: pictures.r1 },
      { role: 'reference_image', path: pictures.r2 },
      { role: 'reference_image', path: pictures.r3 },
    ]);
    await verified((await result).path, job);
    const { graph, nodes, loaded } = received(s, job);
    const [phantom] = nodes('WanPhantomSubjectToVideo');
    // Unfold the ImageBatch chain into the images it batches.
    const unfold = async (link: unknown): Promise<Buffer[]> => {
      const node = graph[(link as [string])[0]];
      if (node.class_type !== 'ImageBatch') return [await loaded(link)];
      return [...(await unfold(node.inputs.image1)), ...(await unfold(node.inputs.image2))];
    };
    assert.deepEqual(await unfold(phantom.inputs.images), await Promise.all(['r1', 'r2', 'r3'].map(bytes)));
    assert.equal(nodes('ImageBatch').length, 2);
  });

  it('refuses inputs a preset has no place for, before anything reaches the host', async () => {
    const s = await host();
    for (const [preset, inputs] of [
      ['wan2.1-flf2v-14b', [{ role: 'keyframe', path: pictures.k1, atSeconds: 1 }]],
      ['wan2.1-phantom-14b', [{ role: 'first_frame', path: pictures.first }]],
      ['wan2.1-phantom-14b', Array.from({ length: 5 }, () => ({ role: 'reference_image', path: pictures.r1 }))],
    ] as Array<[string, JobInput[]]>) {
      const err = await (await run(preset, s, inputs)).result.then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(err instanceof TaskFailure && err.code === 'invalid_input', `${preset}: ${String(err)}`);
    }
    assert.deepEqual([s.stats.uploads, s.stats.submitted], [[], []]);
  });

  it('each preset declares the inputs its workflows have room for', async () => {
    const declared = async (name: string) => workflowInputs(await loadPreset(name));
    assert.deepEqual(await declared('wan2.2-ti2v-5b'), {
      first_frame: true,
      last_frame: false,
      keyframes: 0,
      reference_images: 0,
      reference_audios: 0,
      reference_videos: 0,
      exclusive: [],
    });
    assert.deepEqual(await declared('wan2.1-flf2v-14b'), {
      first_frame: true,
      last_frame: true,
      keyframes: 0,
      reference_images: 0,
      reference_audios: 0,
      reference_videos: 0,
      exclusive: [],
    });
    const ltx = await declared('ltxv-2b-keyframes');
    assert.deepEqual([ltx.first_frame, ltx.last_frame, ltx.keyframes, ltx.exclusive], [true, true, 4, []]);
    const phantom = await declared('wan2.1-phantom-14b');
    assert.deepEqual([phantom.first_frame, phantom.reference_images], [false, 4]);
  });
});
