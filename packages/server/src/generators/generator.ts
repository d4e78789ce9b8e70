import type { TaskKind } from '../domain/task.ts';
import type { InputRole, ModelInputs } from '../domain/task-inputs.ts';
import type { Tracing } from '../observability/tracing/tracing.ts';

/** The input video of an edit or extension: fetched, stored in the attempt's workDir and probed by the engine. */
export interface InputVideo {
  path: string;
  /** As probed; may be odd (the job's width and height are these rounded down to even). */
  width: number;
  height: number;
  durationSeconds: number;
  frames: number;
  /** The stream's rate exactly as ffprobe states it, e.g. "24/1" or "30000/1001". */
  frameRate: string;
  /** The input has an audio stream (the first one is the one edits and extensions carry on). */
  hasAudio?: boolean;
}

/**
 * One of the task's inputs (domain/task-inputs.ts), loaded by the worker into a local file: an image
 * decoded and re-encoded as PNG, as `images` are; an audio or a video as the caller sent it.
 */
export interface JobInput {
  role: InputRole;
  path: string;
  /** A keyframe's time in seconds from the start of the output; keyframes only. */
  atSeconds?: number;
}

/**
 * Everything a backend needs to make one video. Input images are already local files.
 * For an edit or extension, `video` is the input; `width`/`height` are its size (even), `fps` its
 * rate, and `duration` its length (edit) or the seconds to add after it (extend).
 */
export interface GenerationJob {
  taskId: string;
  /** Our catalog model id (a relay maps it to the upstream's). */
  model?: string;
  /** Lease token of this attempt: unique per attempt, safe to use as an upstream idempotency id. */
  attempt: number;
  kind: TaskKind;
  prompt: string;
  width: number;
  height: number;
  /** Seconds. */
  duration: number;
  fps: number;
  seed?: number;
  /** Paths of decoded, re-encoded PNG images (first frame first). Empty for text-to-video. */
  images: string[];
  /**
   * Every input with its role, in the task's order, first frame included (also `images[0]`).
   * Absent: the job has at most its first frame, `images[0]`.
   */
  inputs?: JobInput[];
  /** Edits and extensions only. */
  video?: InputVideo;
  /**
   * The output must carry sound (one audio stream as long as the picture, not silent); when false
   * or absent it must carry none. The engine checks the file against it.
   */
  audio?: boolean;
}

/**
 * Why the engine stopped an attempt, in the terms a backend acts on. Every backend does the same:
 * - `cancel`: nobody wants the video any more; stop the upstream work (best effort), it only costs.
 * - `deadline`: this attempt ran past its hard limit; stop the upstream work too, as it is hung or
 *   too slow to trust, and the engine decides about a retry.
 * - `handover`: another attempt takes the task over (shutdown, a lost lease); leave the upstream
 *   work running, so that attempt re-attaches to it through the checkpoint instead of paying again.
 */
export type GenerationStop = 'cancel' | 'handover' | 'deadline';

/**
 * Failures are TaskFailures (engine/task-failure.ts), made with FAILURES: a stable code and a
 * message safe to show the caller. A stopped attempt rejects with `canceled` whatever the stop
 * reason; the engine records what really happened. One exception: at a `deadline` a backend may
 * reject with a `deadline_exceeded` that is not retryable, when another attempt could only pay
 * for the work again (a relay whose upstream job it canceled).
 */
export interface GenerationContext {
  signal: AbortSignal;
  /** Set once `signal` is aborted. */
  stopReason(): GenerationStop | undefined;
  /** Fraction done, 0..1. Calls must never go backwards. */
  onProgress(fraction: number): void;
  /**
   * A private directory for this attempt, made when first read (a backend that needs none pays nothing); removed by the
   * worker afterwards.
   */
  workDir: string;
  /**
   * Durable per-task state of the backend (an upstream task id, a ComfyUI prompt id), kept in
   * the task row under the lease. A later attempt of the same task (after a crash or a lost
   * lease) reads it back to re-attach instead of submitting again.
   */
  checkpoint: BackendCheckpoint;
  /**
   * Spans of the backend's own steps (a render, a prompt, an upstream submit, each poll, a download),
   * children of the attempt's; absent (outside the engine), none are made.
   */
  tracing?: Tracing;
}

export interface BackendCheckpoint {
  load(): Promise<unknown | undefined>;
  /** Returns false when the lease was lost: the attempt must stop. */
  save(state: unknown): Promise<boolean>;
}

export interface GenerationOutput {
  /** Path of the finished MP4 inside `workDir`. */
  path: string;
  /**
   * Size and length of the output where the backend decides them (an edit that crops). The engine
   * checks them against its own rules (an edit keeps the input's length and never grows it, an
   * extension keeps its size and adds exactly the requested seconds) before verifying the file.
   */
  expect?: { width: number; height: number; durationSeconds: number };
  /** What an upstream reported charging for this video (USD ticks), for the operator's margin report. */
  upstreamCostUsdTicks?: number;
}

/** The inputs of one role, in order: from `inputs`, or for a job that has only `images`, its first frame. */
export function jobInputs(job: Pick<GenerationJob, 'images' | 'inputs'>, role: InputRole): JobInput[] {
  if (job.inputs) return job.inputs.filter((input) => input.role === role);
  return role === 'first_frame' ? job.images.slice(0, 1).map((path) => ({ role, path })) : [];
}

/** One backend (the built-in renderer, a ComfyUI host, a relay). */
export interface Generator {
  /** What this backend can do; the catalog refuses models that ask for more. */
  readonly kinds: readonly TaskKind[];
  /**
   * The inputs this backend can take for one of our models: one declaration per way it may go (a
   * relay's channels that serve the model; a ComfyUI model's workflows as one). A task goes only
   * where its inputs fit one of them. Absent, the backend takes a first frame and nothing else.
   */
  inputsFor?(model: string): readonly ModelInputs[];
  generate(job: GenerationJob, ctx: GenerationContext): Promise<GenerationOutput>;
}

/**
 * For running a generator outside the engine (tests, benchmarks): an abort whose reason is a
 * GenerationStop is that stop, any other abort is a cancel.
 */
export function stopReasonOf(signal: AbortSignal): () => GenerationStop | undefined {
  return () => {
    if (!signal.aborted) return undefined;
    return signal.reason === 'handover' || signal.reason === 'deadline' ? signal.reason : 'cancel';
  };
}

/** A checkpoint kept in memory, for running a generator outside the engine (tests, benchmarks). */
export function memoryCheckpoint(): BackendCheckpoint {
  let state: unknown;
  return {
    load: async () => state,
    save: async (next) => {
      state = next;
      return true;
    },
  };
}

/** Wraps a progress callback so callers may rely on it: within 0..1 and never backwards. */
export function monotonicProgress(report: (fraction: number) => void): (fraction: number) => void {
  let last = -1;
  return (fraction) => {
    const clamped = Math.min(1, Math.max(0, fraction));
    if (clamped > last) {
      last = clamped;
      report(clamped);
    }
  };
}
