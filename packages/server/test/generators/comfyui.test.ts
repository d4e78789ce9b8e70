import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatorContract, samplePicture } from '../../src/generators/generator.contract.ts';
import { pino } from 'pino';
import { TaskFailure } from '../../src/domain/task-failure.ts';
import {
  memoryCheckpoint,
  stopReasonOf,
  type BackendCheckpoint,
  type GenerationJob,
} from '../../src/generators/generator.ts';
import { ComfyUiGenerator, type ComfyUiGeneratorOptions } from '../../src/generators/comfyui/comfyui-generator.ts';
import { ComfyUiHostPool, type ComfyUiHostConfig } from '../../src/generators/comfyui/comfyui-host-pool.ts';
import { loadPreset } from '../../src/generators/comfyui/workflow-presets.ts';
import type { ComfyUiWorkflows } from '../../src/generators/comfyui/render-plan.ts';
import { promptIdFor } from '../../src/generators/comfyui/prompt-id.ts';
import { resolveFfmpegBinaries } from '../../src/media/ffmpeg-binaries.ts';
import { verifyVideo } from '../../src/media/video-probe.ts';
import { ComfyUiStandIn } from '../support/comfyui-standin/comfyui-standin.ts';
import { standInsPerTest } from '../support/comfyui-standin/stand-ins-per-test.ts';

const bins = resolveFfmpegBinaries({});
// Short polls keep the suite quick; production defaults are 1 s and 5 s.
const timings = { pollMs: 100, socketPollMs: 1000, unreachableGraceMs: 1000 };
let wan: ComfyUiWorkflows;
before(async () => {
  wan = await loadPreset('wan2.2-ti2v-5b');
});

function generator(hosts: ComfyUiHostConfig[], extra: Partial<ComfyUiGeneratorOptions> = {}) {
  const pool = new ComfyUiHostPool(hosts, { requestTimeoutMs: 3000 });
  return new ComfyUiGenerator({
    pool,
    workflows: wan,
    ffmpeg: bins.ffmpeg,
    ffprobe: bins.ffprobe,
    preset: 'ultrafast',
    timings,
    ...extra,
  });
}

generatorContract(
  'comfyui (stand-in host)',
  async () => {
    const standIn = await ComfyUiStandIn.start({ ffmpeg: bins.ffmpeg });
    // A remote model is not bit-reproducible across GPUs and builds, so determinism is not promised.
    return {
      generator: generator([{ name: 'gpu-1', url: standIn.url }]),
      ffprobe: bins.ffprobe,
      cleanup: () => standIn.close(),
    };
  },
  { deterministic: false },
);

describe('comfyui backend', () => {
  let dir: string;
  let picture: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vidgen-comfyui-'));
    picture = join(dir, 'first-frame.png');
    await writeFile(picture, await samplePicture(320, 240));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const host = standInsPerTest(bins.ffmpeg);
  const job = (overrides: Partial<GenerationJob> = {}): GenerationJob => ({
    taskId: randomUUID(),
    attempt: 1,
    kind: 'generate',
    prompt: 'waves rolling onto a beach',
    width: 160,
    height: 96,
    duration: 1,
    fps: 12,
    seed: 1,
    images: [],
    ...overrides,
  });
  const context = async (signal = new AbortController().signal, checkpoint: BackendCheckpoint = memoryCheckpoint()) => {
    const progress: number[] = [];
    return {
      ctx: {
        signal,
        stopReason: stopReasonOf(signal),
        workDir: await mkdtemp(join(dir, 'work-')),
        onProgress: (p: number) => progress.push(p),
        checkpoint,
      },
      progress,
    };
  };
  const verified = async (path: string, j: GenerationJob) =>
    verifyVideo(bins.ffprobe, path, { width: j.width, height: j.height, durationSeconds: j.duration, fps: j.fps });
  const failure = async (p: Promise<unknown>) => {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof TaskFailure, `expected a TaskFailure, got ${String(err)}`);
    return err;
  };

  it('refuses a workflow the host rejects (400) for good, naming the node, not the host', async () => {
    const s = await host({ models: { diffusion_models: ['some_other_model.safetensors'] } });
    const { ctx } = await context();
    const err = await failure(generator([{ name: 'gpu-1', url: s.url }]).generate(job(), ctx));
    assert.deepEqual([err.code, err.retryable], ['invalid_input', false]);
    assert.match(err.message, /UNETLoader \(value_not_in_list\)/);
    assert.ok(!err.message.includes(s.url.split('//')[1]), 'the host address must not leak');
    assert.deepEqual(s.stats.submitted, []);
  });

  it('treats 200 with node_errors as a rejection and asks the host to stop the half-valid prompt', async () => {
    const s = await host();
    // A second output whose input is missing: ComfyUI queues the valid output and reports the other.
    const broken = {
      ...wan.textToVideo!,
      99: { class_type: 'SaveVideo', inputs: { filename_prefix: 'x', format: 'mp4', codec: 'h264' } },
    };
    const g = generator([{ name: 'gpu-1', url: s.url }], { workflows: { ...wan, textToVideo: broken } });
    const j = job();
    const { ctx } = await context();
    const err = await failure(g.generate(j, ctx));
    assert.deepEqual([err.code, err.retryable], ['invalid_input', false]);
    assert.match(err.message, /SaveVideo \(required_input_missing\)/);
    const id = promptIdFor(j.taskId, j.attempt);
    assert.deepEqual(s.stats.submitted, [id]);
    assert.ok(
      s.stats.queueDeletes.includes(id) || s.stats.interrupts.includes(id),
      'the prompt was neither deleted nor interrupted',
    );
    assert.equal(s.outstanding, 0);
  });

  it('an attempt stopped at its deadline interrupts its prompt, like a cancel', async () => {
    const s = await host();
    s.faults.slow = true;
    const j = job({ duration: 3 });
    const stop = new AbortController();
    const running = generator([{ name: 'gpu-1', url: s.url }]).generate(j, (await context(stop.signal)).ctx);
    await until(() => s.running.size === 1);
    stop.abort('deadline');
    await failure(running);
    assert.deepEqual(s.stats.interrupts, [promptIdFor(j.taskId, 1)]);
    assert.equal(s.outstanding, 0);
  });

  it('re-attaches a new attempt to the prompt of a crashed one instead of submitting again', async () => {
    const s = await host();
    s.faults.slow = true;
    const checkpoint = memoryCheckpoint();
    const j = job({ duration: 2, images: [picture] });
    const first = new AbortController();
    const { ctx: ctxA } = await context(first.signal, checkpoint);
    const attemptA = generator([{ name: 'gpu-1', url: s.url }]).generate(j, ctxA);
    await until(() => s.running.size === 1);
    // The worker goes away (a crash or a shutdown): nothing is sent to the host.
    first.abort('handover');
    assert.equal((await failure(attemptA)).code, 'canceled');
    assert.deepEqual(s.stats.interrupts, []);
    assert.equal(s.running.size, 1, 'the prompt must keep running on the host');

    const { ctx: ctxB, progress } = await context(new AbortController().signal, checkpoint);
    const out = await generator([{ name: 'gpu-1', url: s.url }]).generate({ ...j, attempt: 2 }, ctxB);
    await verified(out.path, j);
    assert.deepEqual(s.stats.submitted, [promptIdFor(j.taskId, 1)], 'exactly one submit, by the first attempt');
    assert.equal(s.stats.uploads.length, 1);
    assert.equal(progress.at(-1), 1);
  });

  it('cancel interrupts a running prompt and deletes a queued one', async () => {
    const s = await host();
    s.faults.slow = true;
    // Two of our slots on a host that executes one prompt at a time: the second waits in its queue.
    const g = generator([{ name: 'gpu-1', url: s.url, slots: 2 }]);
    const running = new AbortController();
    const queued = new AbortController();
    const [a, b] = [job({ duration: 3 }), job({ duration: 3 })];
    const pa = g.generate(a, (await context(running.signal)).ctx);
    await until(() => s.running.size === 1);
    const pb = g.generate(b, (await context(queued.signal)).ctx);
    await until(() => s.queue.length === 1);

    queued.abort('canceled');
    assert.equal((await failure(pb)).code, 'canceled');
    assert.deepEqual(s.stats.queueDeletes, [promptIdFor(b.taskId, 1)]);
    const started = Date.now();
    running.abort('canceled');
    assert.equal((await failure(pa)).code, 'canceled');
    assert.ok(Date.now() - started < 3000, 'cancel took too long');
    assert.deepEqual(s.stats.interrupts, [promptIdFor(a.taskId, 1)]);
    assert.equal(s.outstanding, 0);
    assert.equal(
      s.history.get(promptIdFor(a.taskId, 1))?.status.messages.some(([e]) => e === 'execution_interrupted'),
      true,
    );
  });

  it('falls back to /history and /queue on builds without /api/jobs, and learns that once per host', async () => {
    // An older build also ignores our prompt_id and mints its own.
    const s = await host({ jobsApi: false, clientPromptIds: false });
    const g = generator([{ name: 'gpu-1', url: s.url }]);
    for (const [i, j] of [job(), job({ images: [picture] })].entries()) {
      const { ctx } = await context();
      await verified((await g.generate(j, ctx)).path, j);
      // The checkpoint follows the id the host chose, so a re-attach finds the prompt.
      assert.equal(((await ctx.checkpoint.load()) as { promptId: string }).promptId, s.stats.submitted[i]);
    }
    const count = (prefix: string) => s.stats.requests.filter((r) => r.startsWith(prefix)).length;
    assert.equal(count('GET /api/jobs/'), 1);
    assert.ok(count('GET /history/') >= 2 && count('GET /queue') >= 1);
    assert.equal(s.stats.submitted.length, 2);
  });

  it('finishes by polling when the websocket drops mid-run', async () => {
    const s = await host();
    s.faults.slow = true;
    s.faults.dropWebSockets = true;
    const j = job({ duration: 2 });
    const { ctx, progress } = await context();
    await verified((await generator([{ name: 'gpu-1', url: s.url }]).generate(j, ctx)).path, j);
    assert.ok(s.stats.requests.filter((r) => r.startsWith('GET /api/jobs/')).length >= 5, 'expected status polls');
    assert.equal(progress.at(-1), 1);
  });

  it('fails transiently when the host is down, answers 5xx or restarts mid-run, without naming it', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const { port } = srv.address() as { port: number };
        srv.close(() => resolve(port));
      });
    });
    const down = await failure(
      generator([{ name: 'gpu-1', url: `http://127.0.0.1:${closedPort}` }]).generate(job(), (await context()).ctx),
    );
    assert.deepEqual([down.code, down.retryable], ['backend_unavailable', true]);
    assert.ok(!down.message.includes(String(closedPort)) && !down.message.includes('127.0.0.1'));

    const s = await host();
    s.faults.serverError = 502;
    const broken = await failure(generator([{ name: 'gpu-1', url: s.url }]).generate(job(), (await context()).ctx));
    assert.deepEqual([broken.code, broken.retryable], ['backend_unavailable', true]);

    s.faults = { slow: true, crashAtProgress: 0.3 };
    const lost = await failure(
      generator([{ name: 'gpu-1', url: s.url }]).generate(job({ duration: 2 }), (await context()).ctx),
    );
    assert.deepEqual([lost.code, lost.retryable], ['backend_unavailable', true]);
    assert.match(lost.message, /lost the task/);
    assert.equal(s.stats.crashes, 1);
  });

  it("fails for good on a node's deterministic error (a workflow mistake), with ComfyUI's message in the log only", async () => {
    const s = await host();
    s.faults.nodeError = {
      classType: 'SaveVideo',
      exceptionType: 'ValueError',
      message: "codec 'h265' is not supported (/opt/ComfyUI/comfy_extras/nodes_video.py)",
    };
    const lines: Array<Record<string, unknown>> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    try {
      const err = await failure(
        generator([{ name: 'gpu-1', url: s.url }], { logger }).generate(job(), (await context()).ctx),
      );
      assert.deepEqual([err.code, err.retryable], ['workflow_failed', false]);
      assert.match(err.message, /SaveVideo/);
      assert.ok(!err.message.includes('/opt/ComfyUI'), 'the host path stays out of the message');
      const logged = lines.find((l) => l.msg === 'a ComfyUI node failed');
      assert.equal(
        logged?.exceptionMessage,
        "codec 'h265' is not supported (/opt/ComfyUI/comfy_extras/nodes_video.py)",
      );
      // A RuntimeError may be a CUDA fault: still retried.
      s.faults.nodeError = {
        classType: 'SaveVideo',
        exceptionType: 'RuntimeError',
        message: 'CUDA error: an illegal memory access was encountered',
      };
      const transient = await failure(
        generator([{ name: 'gpu-1', url: s.url }]).generate(job(), (await context()).ctx),
      );
      assert.deepEqual([transient.code, transient.retryable], ['render_failed', true]);
    } finally {
      s.faults = {};
    }
  });

  it('stops at its own deadline: interrupts the prompt and fails transiently', async () => {
    const s = await host();
    s.faults.slow = true;
    const j = job({ duration: 5 });
    const err = await failure(
      generator([{ name: 'gpu-1', url: s.url }], { timeoutMs: 700 }).generate(j, (await context()).ctx),
    );
    assert.deepEqual([err.code, err.retryable], ['deadline_exceeded', true]);
    assert.deepEqual(s.stats.interrupts, [promptIdFor(j.taskId, 1)]);
    assert.equal(s.outstanding, 0);
  });

  it('keeps one prompt per slot on a host and spreads jobs over hosts', async () => {
    const one = await host({ slots: 2 });
    const g = generator([{ name: 'gpu-1', url: one.url, slots: 1 }]);
    const jobs = [job(), job(), job()];
    const outs = await Promise.all(jobs.map(async (j) => g.generate(j, (await context()).ctx)));
    for (const [i, o] of outs.entries()) await verified(o.path, jobs[i]);
    assert.equal(one.stats.maxOutstanding, 1, 'the host had more than one of our prompts at once');

    const [x, y] = [await host(), await host()];
    x.faults.slow = y.faults.slow = true;
    const spread = generator([
      { name: 'gpu-x', url: x.url },
      { name: 'gpu-y', url: y.url },
    ]);
    await Promise.all([job(), job()].map(async (j) => spread.generate(j, (await context()).ctx)));
    assert.deepEqual([x.stats.submitted.length, y.stats.submitted.length], [1, 1]);
  });

  it('converts a GIF from VHS_VideoCombine into the exact MP4', async () => {
    const s = await host();
    const { 57: _create, 58: _save, ...rest } = wan.textToVideo!;
    const gif = {
      ...rest,
      60: {
        class_type: 'VHS_VideoCombine',
        inputs: {
          images: ['8', 0],
          frame_rate: '{{fps}}',
          loop_count: 0,
          filename_prefix: 'vidgen',
          format: 'image/gif',
          pingpong: false,
          save_output: true,
        },
      },
    };
    const j = job({ width: 200, height: 200 });
    const { ctx } = await context();
    const out = await generator([{ name: 'gpu-1', url: s.url }], { workflows: { ...wan, textToVideo: gif } }).generate(
      j,
      ctx,
    );
    await verified(out.path, j);
  });
});

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}
