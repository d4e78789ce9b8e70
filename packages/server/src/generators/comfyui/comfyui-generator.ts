/**
 * The ComfyUI backend: renders on GPU hosts running ComfyUI, one prompt per host slot.
 *
 * Durability: the prompt id is derived from the attempt and written to the task's checkpoint before
 * the prompt is submitted (and again after). A later attempt of the same task (after a worker crash,
 * a shutdown or a lost lease) finds the prompt by that id and follows it instead of rendering again.
 * The checkpoint names the host, never its URL.
 */
import { extname, join } from 'node:path';
import type { Logger } from 'pino';
import type { TaskKind } from '../../domain/task.ts';
import { FAILURES, TaskFailure } from '../../domain/task-failure.ts';
import {
  monotonicProgress,
  type BackendCheckpoint,
  type GenerationContext,
  type GenerationJob,
  type GenerationOutput,
  type Generator,
} from '../generator.ts';
import type { ComfyUiClient } from './comfyui-client.ts';
import {
  deadlineExceeded,
  executionFailed,
  interruptedOnHost,
  leaseLost,
  noVideoOutput,
  workflowRejected,
} from './comfyui-failures.ts';
import type { ComfyUiHostPool, HostSlot } from './comfyui-host-pool.ts';
import { ComfyUiSocket } from './comfyui-socket.ts';
import { normalizeVideo } from './output-video.ts';
import { clientIdFor, promptIdFor, seedFor } from './prompt-id.ts';
import { PromptProgress } from './prompt-progress.ts';
import { pickVideo, type PromptStatus } from './prompt-status.ts';
import { cancelRemote, takeOff, watchPrompt, type StopRequest, type WatchTimings } from './prompt-watch.ts';
import { checkWorkflows, planRender, type ComfyUiWorkflows, type RenderPlan } from './render-plan.ts';
import { fillWorkflow, placeholdersIn, type WorkflowGraph } from './workflow-template.ts';
import { pruneEmptySlots } from './workflow-slots.ts';
import { workflowInputs } from './workflow-choice.ts';
import type { ModelInputs } from '../../domain/task-inputs.ts';
import { uploadInputs } from './prompt-inputs.ts';
import { noTracing, type SpanAttributes } from '../../observability/tracing/tracing.ts';

export interface ComfyUiGeneratorOptions {
  pool: ComfyUiHostPool;
  /** Hosts of the pool this model may use; all by default. */
  hosts?: string[];
  workflows: ComfyUiWorkflows;
  ffmpeg: string;
  ffprobe: string;
  /** Our own deadline per attempt, slot wait included; 30 minutes by default. */
  timeoutMs?: number;
  /** How long a cancel waits for the host to let go of the prompt; 2 s by default. */
  cancelGraceMs?: number;
  /**
   * After that, how long the host slot stays taken while the host finishes the interrupted node;
   * 10 minutes by default. The attempt has ended by then; only the next prompt for that host waits.
   */
  cancelHoldMs?: number;
  /** Largest output file fetched from a host; 2 GiB by default. */
  maxOutputBytes?: number;
  /** x264 preset of the final encode; `veryfast` by default. */
  preset?: string;
  timings?: Partial<WatchTimings>;
  clock?: () => number;
  /** Where ComfyUI's own error text goes (never into a task's message). */
  logger?: Logger;
}

/** What this backend keeps in a task's checkpoint. */
interface PromptRef {
  backend: 'comfyui';
  host: string;
  promptId: string;
  clientId: string;
  submitted: boolean;
}

/** A prompt on a host that this attempt follows, submitted by it or by an earlier one. */
interface Run {
  slot: HostSlot;
  promptId: string;
  clientId: string;
  graph: WorkflowGraph;
  socket?: ComfyUiSocket;
  /** Asked to stop, and the host has not yet said that it did: the slot is held until it does. */
  unsettled?: boolean;
  stop?: StopRequest;
}

// Shares of the progress bar: ComfyUI's part, then fetching the file, then our encode.
const RENDER_END = 0.9;
const FETCH_END = 0.92;

export class ComfyUiGenerator implements Generator {
  readonly kinds: readonly TaskKind[] = ['generate'];
  private readonly inputs: ModelInputs;
  private readonly timings: WatchTimings;
  private readonly clock: () => number;

  constructor(private readonly o: ComfyUiGeneratorOptions) {
    checkWorkflows(o.workflows, placeholdersIn);
    this.inputs = workflowInputs(o.workflows);
    for (const name of o.hosts ?? []) if (!o.pool.has(name)) throw new Error(`ComfyUI: unknown host "${name}"`);
    this.clock = o.clock ?? Date.now;
    this.timings = {
      pollMs: 1000,
      socketPollMs: 5000,
      unreachableGraceMs: 20_000,
      socketTimeoutMs: 5000,
      ...o.timings,
    };
  }

  /** One model per ComfyUI backend: what its workflows have room for (workflow-choice.ts). */
  inputsFor(): readonly ModelInputs[] {
    return [this.inputs];
  }

  async generate(job: GenerationJob, ctx: GenerationContext): Promise<GenerationOutput> {
    if (ctx.signal.aborted) throw FAILURES.canceled();
    const plan = planRender(job, this.o.workflows);
    const progress = monotonicProgress(ctx.onProgress);
    const checkpoint = ctx.checkpoint;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort('deadline'), this.o.timeoutMs ?? 30 * 60_000);
    const signal = AbortSignal.any([ctx.signal, deadline.signal]);
    let run: Run | undefined;
    const tracing = ctx.tracing ?? noTracing;
    try {
      // The prompt's life on its host: uploaded and queued (or found again), then followed to its end.
      const prompted = await tracing.withSpan('comfyui.prompt', undefined, async (span) => {
        const current =
          (await this.reattach(checkpoint, plan, signal)) ??
          (await this.submit(job, plan, checkpoint, signal, (r) => (run = r)));
        run = current;
        span.setAttributes(promptAttributes(current));
        progress(0.02);
        const status = await this.follow(current, signal, (f) => progress(0.02 + (RENDER_END - 0.02) * f));
        return { current, status };
      });
      const { current, status } = prompted;
      const path = await tracing.withSpan('comfyui.download', { attributes: promptAttributes(current) }, () =>
        this.fetchVideo(current, status, job, plan, ctx.workDir, signal, progress),
      );
      return { path };
    } catch (err) {
      if (!signal.aborted) {
        if (run && err instanceof TaskFailure && err.code === 'backend_unavailable')
          this.o.pool.markFailed(run.slot.host);
        throw err;
      }
      // A handover leaves the prompt running for the next attempt to find; a cancel or a deadline
      // (the engine's or our own) frees the GPU.
      if (run && !(ctx.signal.aborted && ctx.stopReason() === 'handover')) await this.takeOff(run);
      throw ctx.signal.aborted ? FAILURES.canceled() : deadlineExceeded();
    } finally {
      clearTimeout(timer);
      run?.socket?.close();
      if (run?.unsettled) this.holdSlot(run);
      else run?.slot.release();
    }
  }

  private async takeOff(run: Run): Promise<void> {
    run.stop ??= { asked: false };
    run.unsettled = !(await cancelRemote(run.slot.client, run.promptId, this.o.cancelGraceMs ?? 2000, run.stop));
  }

  /**
   * The host is still running the node it was interrupted in (ComfyUI checks the flag only between
   * nodes or sampler steps): giving the slot back now would queue the next prompt behind a GPU that
   * is still busy, and count one prompt too few on it. So the slot stays taken until the host
   * reports the prompt ended, within `cancelHoldMs`; the attempt itself has already ended.
   */
  private holdSlot(run: Run): void {
    const { slot, promptId } = run;
    this.o.logger?.info({ host: slot.host }, 'holding the host slot until the interrupted prompt ends');
    void takeOff(
      slot.client,
      promptId,
      AbortSignal.timeout(this.o.cancelHoldMs ?? 10 * 60_000),
      this.timings.pollMs,
      run.stop,
    ).then((ended) => {
      if (ended) this.o.logger?.info({ host: slot.host }, 'the interrupted prompt ended; slot released');
      else
        this.o.logger?.warn(
          { host: slot.host },
          'the host did not report the interrupted prompt ended in time, or stopped answering; slot released',
        );
      slot.release();
    });
  }

  /** Follows the prompt an earlier attempt left on its host, if that host still has it alive or done. */
  private async reattach(
    checkpoint: BackendCheckpoint,
    plan: RenderPlan,
    signal: AbortSignal,
  ): Promise<Run | undefined> {
    const ref = parseRef(await checkpoint.load());
    if (!ref || !this.o.pool.has(ref.host) || (this.o.hosts && !this.o.hosts.includes(ref.host))) return undefined;
    const slot = await this.o.pool.acquireOn(ref.host, signal);
    let found: Run | undefined;
    try {
      const status = await slot.client.status(ref.promptId, signal);
      // A failed or interrupted prompt was the last attempt's failure; this attempt is the retry.
      if (['pending', 'running', 'succeeded'].includes(status.state)) {
        const socket = status.state === 'succeeded' ? undefined : await this.connect(slot.client, ref.clientId, signal);
        found = { slot, promptId: ref.promptId, clientId: ref.clientId, graph: plan.workflow, socket };
      }
    } catch (err) {
      if (signal.aborted) throw err;
      // Unreachable: a host that comes back has lost its in-memory queue, so render afresh elsewhere.
      this.o.pool.markFailed(ref.host);
    } finally {
      if (!found) slot.release();
    }
    return found;
  }

  /** Uploads, submits and returns the run; `posting` learns of it just before POST /prompt, for cleanup. */
  private async submit(
    job: GenerationJob,
    plan: RenderPlan,
    checkpoint: BackendCheckpoint,
    signal: AbortSignal,
    posting: (run: Run) => void,
  ): Promise<Run> {
    const slot = await this.o.pool.acquire(signal, this.o.hosts);
    const promptId = promptIdFor(job.taskId, job.attempt);
    const clientId = clientIdFor(promptId);
    let socket: ComfyUiSocket | undefined;
    let posted = false;
    try {
      const { present, ...inputs } = await uploadInputs(slot.client, job, plan, promptId, signal);
      const multi = plan.workflow !== this.o.workflows.imageToVideo && plan.workflow !== this.o.workflows.textToVideo;
      const graph = fillWorkflow(multi ? pruneEmptySlots(plan.workflow, present) : plan.workflow, {
        prompt: job.prompt,
        negative_prompt: this.o.workflows.negativePrompt ?? '',
        ...inputs,
        width: plan.renderWidth,
        height: plan.renderHeight,
        length: plan.renderFrames,
        fps: plan.renderFps,
        seed: job.seed ?? seedFor(job.taskId),
        prompt_id: promptId,
      });
      // Before submitting, so no early message goes to a client that is not listening yet.
      socket = await this.connect(slot.client, clientId, signal);
      const ref: PromptRef = { backend: 'comfyui', host: slot.host, promptId, clientId, submitted: false };
      if (!(await checkpoint.save(ref))) throw leaseLost();
      const run: Run = { slot, promptId, clientId, graph, socket };
      posting(run);
      posted = true;
      const answer = await this.post(
        slot.client,
        { prompt: graph, prompt_id: promptId, client_id: clientId },
        promptId,
        signal,
      );
      if (!answer.accepted) throw workflowRejected(answer.error, answer.nodeErrors);
      // Builds from before mid-2025 ignore our prompt_id and pick their own; follow theirs.
      run.promptId = answer.promptId ?? promptId;
      if (Object.keys(answer.nodeErrors).length > 0) {
        // Queued, but ComfyUI will run only the outputs that validated: ask the host to stop it. It may
        // still finish the valid branch (cached upstream nodes leave little to run); that output is never fetched.
        await this.takeOff(run);
        throw workflowRejected(undefined, answer.nodeErrors);
      }
      if (!(await checkpoint.save({ ...ref, promptId: run.promptId, submitted: true }))) throw leaseLost();
      this.o.pool.markHealthy(slot.host);
      return run;
    } catch (err) {
      // Once posted, the caller owns the run: it may have to take the prompt back off the host.
      if (!posted) {
        socket?.close();
        slot.release();
      }
      if (err instanceof TaskFailure && err.code === 'backend_unavailable') this.o.pool.markFailed(slot.host);
      throw err;
    }
  }

  /** POST /prompt; when the answer is lost, looks the id up before concluding anything. */
  private async post(client: ComfyUiClient, body: Record<string, unknown>, promptId: string, signal: AbortSignal) {
    try {
      return await client.submit(body, signal);
    } catch (err) {
      if (signal.aborted || !(err instanceof TaskFailure) || !err.retryable) throw err;
      // The request may have reached the host before the connection broke. ComfyUI would queue a
      // second copy under the same id, so never resubmit blindly: a later attempt checks first.
      const seen = await client.status(promptId, signal).catch(() => undefined);
      if (seen && seen.state !== 'unknown') return { accepted: true as const, nodeErrors: {} };
      throw err;
    }
  }

  private connect(client: ComfyUiClient, clientId: string, signal: AbortSignal): Promise<ComfyUiSocket | undefined> {
    return ComfyUiSocket.connect(
      client.socketUrl(clientId),
      client.socketHeaders(),
      this.timings.socketTimeoutMs,
      signal,
    );
  }

  private async follow(run: Run, signal: AbortSignal, onProgress: (f: number) => void): Promise<PromptStatus> {
    const watch = {
      client: run.slot.client,
      promptId: run.promptId,
      progress: new PromptProgress(run.promptId, run.graph),
      onProgress,
      signal,
      timings: this.timings,
      socket: run.socket,
      clock: this.clock,
      connect: () => this.connect(run.slot.client, run.clientId, signal),
    };
    let status: PromptStatus;
    try {
      status = await watchPrompt(watch);
    } finally {
      run.socket = watch.socket; // a reconnected socket replaces the first; the caller closes it
    }
    if (status.state === 'failed') {
      // ComfyUI's own words (they name host paths and files) go to the operator's log only.
      const f = status.failure;
      this.o.logger?.warn(
        {
          host: run.slot.host,
          node: f?.nodeType,
          exceptionType: f?.exceptionType,
          exceptionMessage: f?.exceptionMessage,
        },
        'a ComfyUI node failed',
      );
      throw executionFailed(f);
    }
    if (status.state === 'canceled') throw interruptedOnHost();
    return status;
  }

  private async fetchVideo(
    run: Run,
    status: PromptStatus,
    job: GenerationJob,
    plan: RenderPlan,
    workDir: string,
    signal: AbortSignal,
    progress: (f: number) => void,
  ): Promise<string> {
    const file = pickVideo(status.outputs);
    if (!file) throw noVideoOutput();
    const local = join(workDir, `comfyui-output${extname(file.filename).toLowerCase()}`);
    await run.slot.client.download(file, local, this.o.maxOutputBytes ?? 2 * 1024 ** 3, signal);
    progress(FETCH_END);
    const path = await normalizeVideo(
      local,
      { width: job.width, height: job.height, fps: job.fps, frames: plan.frames, audio: job.audio === true },
      {
        ffmpeg: this.o.ffmpeg,
        ffprobe: this.o.ffprobe,
        preset: this.o.preset ?? 'veryfast',
        signal,
        onProgress: (f) => progress(FETCH_END + (1 - FETCH_END) * f),
      },
    );
    progress(1);
    return path;
  }
}

function parseRef(state: unknown): PromptRef | undefined {
  const s = state as Partial<PromptRef> | undefined;
  if (
    !s ||
    s.backend !== 'comfyui' ||
    typeof s.host !== 'string' ||
    typeof s.promptId !== 'string' ||
    typeof s.clientId !== 'string'
  )
    return undefined;
  return {
    backend: 'comfyui',
    host: s.host,
    promptId: s.promptId,
    clientId: s.clientId,
    submitted: s.submitted === true,
  };
}

/** A prompt as spans name it: the host's name from the configuration (never its URL) and the prompt id. */
function promptAttributes(run: Run): SpanAttributes {
  return { 'vidgen.comfyui.host': run.slot.host, 'vidgen.comfyui.prompt_id': run.promptId };
}
