/**
 * The ComfyUI backend against the builds it meets: a 0.3.5x–0.3.6x host (the stand-in's
 * `legacy` build: no /api/jobs, an empty 404 there, interrupts seen only between nodes, SaveVideo's
 * codec checked only when it runs) and a current one (the jobs API with its cancel, `progress_state`).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { TaskFailure } from '../../src/domain/task-failure.ts';
import { memoryCheckpoint, stopReasonOf, type GenerationJob } from '../../src/generators/generator.ts';
import { ComfyUiGenerator, type ComfyUiGeneratorOptions } from '../../src/generators/comfyui/comfyui-generator.ts';
import { ComfyUiHostPool, type ComfyUiHostConfig } from '../../src/generators/comfyui/comfyui-host-pool.ts';
import { loadPreset } from '../../src/generators/comfyui/workflow-presets.ts';
import type { ComfyUiWorkflows } from '../../src/generators/comfyui/render-plan.ts';
import { promptIdFor } from '../../src/generators/comfyui/prompt-id.ts';
import { resolveFfmpegBinaries } from '../../src/media/ffmpeg-binaries.ts';
import { verifyVideo } from '../../src/media/video-probe.ts';
import { standInsPerTest } from '../support/comfyui-standin/stand-ins-per-test.ts';

const bins = resolveFfmpegBinaries({});
const timings = { pollMs: 100, socketPollMs: 1000, unreachableGraceMs: 1000 };

describe('comfyui backend on older and newer ComfyUI builds', () => {
  let wan: ComfyUiWorkflows;
  let dir: string;
  before(async () => {
    wan = await loadPreset('wan2.2-ti2v-5b');
    dir = await mkdtemp(join(tmpdir(), 'vidgen-comfyui-builds-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const host = standInsPerTest(bins.ffmpeg);
  const generator = (hosts: ComfyUiHostConfig[], extra: Partial<ComfyUiGeneratorOptions> = {}) =>
    new ComfyUiGenerator({
      pool: new ComfyUiHostPool(hosts, { requestTimeoutMs: 3000 }),
      workflows: wan,
      ffmpeg: bins.ffmpeg,
      ffprobe: bins.ffprobe,
      preset: 'ultrafast',
      timings,
      ...extra,
    });
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
  const context = async (signal = new AbortController().signal) => {
    const progress: number[] = [];
    return {
      ctx: {
        signal,
        stopReason: stopReasonOf(signal),
        workDir: await mkdtemp(join(dir, 'work-')),
        onProgress: (p: number) => progress.push(p),
        checkpoint: memoryCheckpoint(),
      },
      progress,
    };
  };
  const failure = async (p: Promise<unknown>) => {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof TaskFailure, `expected a TaskFailure, got ${String(err)}`);
    return err;
  };
  const capture = () => {
    const lines: Array<Record<string, unknown>> = [];
    return { lines, logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) }) };
  };
  /** The shipped workflow asking SaveVideo for a codec it cannot write: a workflow mistake. */
  const withCodec = (codec: string): ComfyUiWorkflows => {
    const graph = wan.textToVideo!;
    return { ...wan, textToVideo: { ...graph, 58: { ...graph[58], inputs: { ...graph[58].inputs, codec } } } };
  };

  it('an old build: its empty 404 on /api/jobs means "no jobs API", and the task is followed through /history and /queue', async () => {
    const s = await host({ build: 'legacy' });
    const j = job();
    const { ctx } = await context();
    const out = await generator([{ name: 'gpu-1', url: s.url }]).generate(j, ctx);
    await verifyVideo(bins.ffprobe, out.path, {
      width: j.width,
      height: j.height,
      durationSeconds: j.duration,
      fps: j.fps,
    });
    const count = (prefix: string) => s.stats.requests.filter((r) => r.startsWith(prefix)).length;
    assert.equal(count('GET /api/jobs/'), 1, 'asked once, then learned');
    assert.ok(count('GET /history/') >= 1);
  });

  it("an old build runs a workflow mistake before it fails: the ValueError fails the task for good, ComfyUI's words in the log only", async () => {
    const s = await host({ build: 'legacy' });
    const { lines, logger } = capture();
    const err = await failure(
      generator([{ name: 'gpu-1', url: s.url }], { workflows: withCodec('hevc'), logger }).generate(
        job(),
        (await context()).ctx,
      ),
    );
    assert.deepEqual([err.code, err.retryable], ['workflow_failed', false]);
    assert.match(err.message, /SaveVideo \(ValueError\)/);
    assert.equal(s.stats.submitted.length, 1, 'the old build accepted the prompt and ran it');
    const logged = lines.find((l) => l.msg === 'a ComfyUI node failed');
    assert.deepEqual(
      [logged?.node, logged?.exceptionType, logged?.exceptionMessage],
      ['SaveVideo', 'ValueError', 'Unsupported codec: hevc'],
    );

    // A current build refuses the same workflow at POST /prompt, before anything runs.
    const current = await host();
    const refused = await failure(
      generator([{ name: 'gpu-1', url: current.url }], { workflows: withCodec('hevc') }).generate(
        job(),
        (await context()).ctx,
      ),
    );
    assert.deepEqual([refused.code, refused.retryable], ['invalid_input', false]);
    assert.match(refused.message, /SaveVideo \(value_not_in_list\)/);
    assert.deepEqual(current.stats.submitted, []);
  });

  it('an old build finishes the node it was interrupted in: the slot stays taken until the host says the prompt ended', async () => {
    const s = await host({ build: 'legacy' });
    s.faults.slow = true;
    const { lines, logger } = capture();
    // One slot, and a grace far shorter than the sampler node the interrupt waits behind.
    const g = generator([{ name: 'gpu-1', url: s.url, slots: 1 }], { cancelGraceMs: 100, logger });
    const stop = new AbortController();
    const a = job({ duration: 3 });
    const { ctx, progress } = await context(stop.signal);
    const first = g.generate(a, ctx);
    await until(() => progress.some((p) => p > 0.1));
    stop.abort('canceled');
    assert.equal((await failure(first)).code, 'canceled');
    // The attempt is over, but the host is still sampling: the next task must wait for it.
    const b = job();
    const out = await g.generate(b, (await context()).ctx);
    await verifyVideo(bins.ffprobe, out.path, {
      width: b.width,
      height: b.height,
      durationSeconds: b.duration,
      fps: b.fps,
    });
    assert.equal(s.stats.maxOutstanding, 1, 'the next prompt was queued behind the dying one');
    assert.deepEqual(s.stats.submitted, [promptIdFor(a.taskId, 1), promptIdFor(b.taskId, 1)]);
    assert.deepEqual(s.stats.interrupts, [promptIdFor(a.taskId, 1)]);
    assert.equal(
      s.history.get(promptIdFor(a.taskId, 1))?.status.messages.some(([e]) => e === 'execution_interrupted'),
      true,
    );
    assert.ok(lines.some((l) => l.msg === 'holding the host slot until the interrupted prompt ends'));
    assert.ok(lines.some((l) => l.msg === 'the interrupted prompt ended; slot released'));
  });

  it('a current build: cancel goes through POST /api/jobs/{id}/cancel, running or queued, and progress comes from progress_state', async () => {
    const s = await host();
    s.faults.slow = true;
    const g = generator([{ name: 'gpu-1', url: s.url, slots: 2 }]);
    const [running, queued] = [new AbortController(), new AbortController()];
    const [a, b] = [job({ duration: 3 }), job({ duration: 3 })];
    const ca = await context(running.signal);
    const pa = g.generate(a, ca.ctx);
    await until(() => ca.progress.some((p) => p > 0.1));
    const pb = g.generate(b, (await context(queued.signal)).ctx);
    await until(() => s.queue.length === 1);
    // Both outcomes are awaited together: either may settle first.
    const ended = Promise.all([failure(pa), failure(pb)]);
    queued.abort('canceled');
    running.abort('canceled');
    assert.deepEqual(
      (await ended).map((e) => e.code),
      ['canceled', 'canceled'],
    );
    assert.deepEqual(s.stats.jobCancels.sort(), [promptIdFor(a.taskId, 1), promptIdFor(b.taskId, 1)].sort());
    assert.ok(
      !s.stats.requests.some((r) => r === 'POST /interrupt' || r === 'POST /queue'),
      'no fallback to /interrupt or /queue',
    );
    assert.deepEqual(s.stats.queueDeletes, [promptIdFor(b.taskId, 1)]);
    assert.deepEqual(s.stats.interrupts, [promptIdFor(a.taskId, 1)]);
    assert.equal(s.outstanding, 0);
  });
});

async function until(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}
