import { stat } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { AttemptOutcome, Claimed, ClaimRequest, TaskStore } from '../store/task-store.ts';
import type { BlobStore } from '../blobs/blob-store.ts';
import type { GenerationStop, Generator } from '../generators/generator.ts';
import type { MediaInputs } from './inputs/media-inputs.ts';
import type { VideoInputs } from './inputs/video-inputs.ts';
import { loadJobInputs } from './inputs/load-inputs.ts';
import type { AudioProber } from '../media/audio-input.ts';
import type { TaskEvents } from '../domain/task-events.ts';
import { taskInputs, type Task } from '../domain/task.ts';
import type { Lease } from '../domain/lease.ts';
import type { EngineMetrics } from './engine-metrics.ts';
import { retryDelayMs } from './retry-policy.ts';
import { expectedOutput, jobShape, type OutputExpectation } from './output-expectation.ts';
import { FAILURES, type FailureCode } from '../domain/task-failure.ts';
import { toTaskFailure } from './to-task-failure.ts';
import { isStorageFault } from '../domain/storage-faults.ts';
import { persistently } from './storage-retry.ts';
import { WorkDir } from './work-dir.ts';
import { workDirPrefix } from './work-root-sweeper.ts';
import { deleteResult, storeVariants, videoKey, type MakeStills } from './video-variants.ts';
import { noTracing, type Span, type Tracing } from '../observability/tracing/tracing.ts';
import { deliverOutput, type OutputDeliveryDeps } from './output-delivery.ts';
import type { DeliveryOutcome } from '../domain/delivery.ts';

export interface TaskRunnerDeps {
  tasks: TaskStore;
  blobs: BlobStore;
  /** The inputs of generations (images, audio), loaded into each attempt's work directory. */
  inputs: MediaInputs;
  videos: VideoInputs;
  generators: Record<string, Generator>;
  /** Told of every state and progress change, so long-polls in this process answer at once. */
  events: TaskEvents;
  metrics: EngineMetrics;
  /**
   * Decodes an input image under the pixel cap and re-encodes it as PNG; throws media's ImageRejected when it can't.
   */
  normalizeImage(bytes: Buffer): Promise<Buffer>;
  /** Probes a reference audio file (media/audio-input.ts); absent, reference audio fails the task. */
  probeAudio?: AudioProber;
  /**
   * Throws media's OutputRejected unless the file is the video that was asked for (invariant 3, docs/architecture.md);
   * may return what it measured, so the result records the real length.
   */
  verifyVideo(file: string, expect: OutputExpectation): Promise<{ durationSeconds: number } | void>;
  /** Poster and sprite sheet of a verified video (media/poster.ts), stored beside it; none when absent. */
  makeStills?: MakeStills;
  maxAttempts: number;
  retentionMs: number;
  workRoot: string;
  logger: Logger;
  clock: () => number;
  /** Spans of each attempt's steps (docs/observability.md); absent, none. */
  tracing?: Tracing;
  /** Sends verified videos where their tasks asked (docs/storage.md); absent, such a task fails. */
  delivery?: OutputDeliveryDeps;
}

/** Resolves when the task may start rendering: its inputs are in and a render slot is its own. */
export type UntilSlot = (signal: AbortSignal) => Promise<void>;

/** The task has inputs to fetch before it renders: it goes through its lane's fetch stage. */
export const hasInputs = (task: Task) => taskInputs(task.params).length > 0 || task.params.video !== undefined;

/** Why an attempt was stopped from outside: each leads to a different ending. */
export type StopReason = 'shutdown' | 'canceled' | 'lease_lost' | 'deadline';

/**
 * What the backend is told. A lost lease is a handover, not a cancel: the worker that reclaimed the
 * task follows the same upstream work through the checkpoint, and stopping it would waste what is
 * paid for. (A lease lost to a cancel from another process is found out and sent as `canceled`.)
 */
const GENERATOR_STOP: Record<StopReason, GenerationStop> = {
  canceled: 'cancel',
  shutdown: 'handover',
  deadline: 'deadline',
  lease_lost: 'handover',
};

/** How an attempt ended, as its row in task_attempts records it. */
interface Ending {
  outcome: AttemptOutcome;
  code: FailureCode | null;
  /** The store already ended the attempt's row with the task's final change. */
  recorded?: boolean;
  /** The slot's next task, claimed with the completion. */
  next?: Claimed;
}

/**
 * Runs one claimed task to its end. Every write presents the lease; when a write is refused
 * the lease was lost (the task was canceled, or another worker owns it now) and this
 * attempt's output is dropped. `claimNext` gives the claim to make with a success, whose task
 * is returned for the same slot (undefined: claim nothing). `span`, the attempt's, is told how it ended.
 */
export async function runTask(
  deps: TaskRunnerDeps,
  task: Task,
  lease: Lease,
  controller: AbortController,
  claimNext: () => ClaimRequest | undefined = () => undefined,
  span?: Span,
  untilSlot?: UntilSlot,
): Promise<Claimed | undefined> {
  const log = deps.logger.child({ taskId: task.id, attempt: task.attempts });
  const started = deps.clock();
  deps.events.taskChanged(task.id);
  let ending: Ending = { outcome: 'lost', code: null };
  // Made when first used, inside the attempt's error handling: a work root that cannot be written is a storage fault,
  // handed back.
  const workDir = new WorkDir(deps.workRoot, () => workDirPrefix(task.id));
  try {
    const produced = await produce(deps, task, lease, controller, workDir, untilSlot);
    ending = produced.ok
      ? await store(deps, task, lease, produced, workDir, claimNext, log)
      : await settleFailure(deps, task, lease, produced.error, controller.signal, log);
  } catch (err) {
    if (!isStorageFault(err)) throw err;
    ending = await handBack(deps, lease, err, log);
  } finally {
    await workDir.remove().catch(() => undefined);
    if (!ending.recorded)
      await deps.tasks.endAttempt(lease, ending.outcome, ending.code, deps.clock()).catch(() => undefined);
    deps.metrics.attemptEnded(task.backend, ending.outcome, deps.clock() - started);
    deps.events.taskChanged(task.id);
    if (span) endAttemptSpan(span, ending);
  }
  return ending.next;
}

/** The attempt's span says how it ended; a failure, a retry or a lost lease is an error. */
function endAttemptSpan(span: Span, ending: Ending): void {
  span.setAttributes({ 'vidgen.attempt.outcome': ending.outcome });
  if (ending.code && ['failed', 'retry', 'lost'].includes(ending.outcome)) span.fail(ending.code);
}

interface Verified {
  path: string;
  durationSeconds: number;
  upstreamCostUsdTicks?: number;
  delivery?: DeliveryOutcome;
}

type Produced = ({ ok: true } & Verified) | { ok: false; error: unknown };

async function produce(
  deps: TaskRunnerDeps,
  task: Task,
  lease: Lease,
  controller: AbortController,
  workDir: WorkDir,
  untilSlot?: UntilSlot,
): Promise<Produced> {
  const tracing = deps.tracing ?? noTracing;
  try {
    const generator = deps.generators[task.backend];
    if (!generator) throw FAILURES.backendUnavailable('No backend is configured for this model.');
    const signal = controller.signal;
    const given = taskInputs(task.params);
    const load = async () => {
      // The work directory is made only when something is written to it.
      const inputs = given.length > 0 ? await loadJobInputs(deps, task, workDir.path, signal) : [];
      // Edits and extensions: the engine probes the input itself, so its rules below do not rest on the backend's word.
      const video = task.params.video ? await deps.videos.load(task, workDir.path, signal) : undefined;
      return { inputs, video };
    };
    const { inputs, video } = hasInputs(task)
      ? await tracing.withSpan('task.load_inputs', { attributes: { 'vidgen.inputs.count': given.length } }, load)
      : await load();
    // Fetched in the lane's fetch stage (fetch-stage.ts): only now does the task take a render slot.
    // Every input is loaded above this line, so a slot never waits on a fetch.
    if (untilSlot) await untilSlot(signal);
    const shape = jobShape(task.kind, task.params, video);
    const { prompt, seed } = task.params;
    const generating = {
      'vidgen.task.backend': task.backend,
      'vidgen.video.width': shape.width,
      'vidgen.video.height': shape.height,
      'vidgen.video.duration_s': shape.duration,
      'vidgen.video.fps': shape.fps,
    };
    const output = await tracing.withSpan('task.generate', { attributes: generating }, () =>
      generator.generate(
        {
          taskId: task.id,
          model: task.model,
          attempt: lease.token,
          kind: task.kind,
          prompt,
          ...shape,
          seed,
          // The first frame as every backend reads it, and every input with its role.
          images: inputs.filter((input) => input.role === 'first_frame').map((input) => input.path),
          inputs,
          ...(video ? { video } : {}),
          ...(task.params.audio !== undefined ? { audio: task.params.audio } : {}),
        },
        {
          signal,
          get workDir() {
            return workDir.path;
          },
          onProgress: progressReporter(deps, lease, controller),
          stopReason: () => (signal.aborted ? (GENERATOR_STOP[signal.reason as StopReason] ?? 'cancel') : undefined),
          checkpoint: {
            load: () => deps.tasks.loadBackendState(task.id),
            save: (state) => deps.tasks.saveBackendState(lease, state),
          },
          tracing,
        },
      ),
    );
    if (signal.aborted) throw FAILURES.canceled();
    const expect = { ...expectedOutput(task.kind, shape, video, output.expect), audio: task.params.audio };
    const measured = await tracing.withSpan('task.verify', undefined, () => deps.verifyVideo(output.path, expect));
    const delivery = task.params.delivery
      ? await tracing.withSpan('task.deliver', undefined, () => deliver(deps, task, lease, output.path, signal))
      : undefined;
    return {
      ok: true,
      path: output.path,
      durationSeconds: measured?.durationSeconds ?? expect.durationSeconds,
      upstreamCostUsdTicks: output.upstreamCostUsdTicks,
      ...(delivery ? { delivery } : {}),
    };
  } catch (error) {
    // The work directory could not be made: whatever the backend made of that, it is a storage fault.
    return { ok: false, error: workDir.failure ?? error };
  }
}

/**
 * A verified video to the caller's storage, before the task is reported done: meanwhile the task
 * shows progress 100 and stays running (docs/storage.md).
 */
async function deliver(deps: TaskRunnerDeps, task: Task, lease: Lease, path: string, signal: AbortSignal) {
  if (!deps.delivery) throw FAILURES.backendUnavailable('This server does not deliver videos to other storage.');
  if (await deps.tasks.reportProgress(lease, 100)) deps.events.taskChanged(task.id);
  const { size } = await stat(path);
  const delivery = task.params.delivery ?? {};
  return deliverOutput(
    deps.delivery,
    { id: task.id, accountId: task.accountId, delivery },
    { path, bytes: size },
    signal,
  );
}

/**
 * Stores the verified file under a key of this attempt, then completes under the lease. A video
 * already delivered under zero retention is not stored: the result records where it went.
 */
async function store(
  deps: TaskRunnerDeps,
  task: Task,
  lease: Lease,
  produced: Verified,
  workDir: WorkDir,
  claimNext: () => ClaimRequest | undefined,
  log: Logger,
): Promise<Ending> {
  const tracing = deps.tracing ?? noTracing;
  const key = videoKey(task.id, lease.token);
  const stored = produced.delivery?.removed
    ? { size: (await stat(produced.path)).size }
    : await keepVideo(deps, key, produced, workDir, log);
  // Stored videos never change: the attempt's token and the size identify the bytes.
  const etag = `"${lease.token.toString(36)}-${stored.size.toString(36)}"`;
  const now = deps.clock();
  const result = {
    blobKey: key,
    bytes: stored.size,
    etag,
    durationSeconds: produced.durationSeconds,
    upstreamCostUsdTicks: produced.upstreamCostUsdTicks,
    ...(produced.delivery ? { delivery: produced.delivery } : {}),
  };
  // A connection lost mid-write is retried while the lease holds; a repeat of a write that did
  // commit unseen is refused, so a refusal is checked against the task before the file goes.
  const finish = () => {
    const next = claimNext();
    if (!next)
      return deps.tasks
        .complete(lease, result, now, now + deps.retentionMs)
        .then((completed) => ({ completed, next: undefined }));
    return deps.tasks.completeAndClaim(lease, result, now, now + deps.retentionMs, next);
  };
  const { completed, next } = await tracing.withSpan('task.complete', undefined, () =>
    persistently(finish, lease.expiresAt, deps.clock),
  );
  if (completed || (await deps.tasks.get(task.id))?.result?.blobKey === key) {
    // The task is done (and a next one may be claimed): leftover inputs are no reason to fail it.
    await deps.inputs
      .discard(taskInputs(task.params))
      .catch((err) => log.warn({ err }, 'input images of a finished task not removed'));
    await discardEarlierOutputs(deps.blobs, task.id, lease.token).catch((err) =>
      log.warn({ err }, 'outputs of earlier attempts not removed'),
    );
    log.info({ bytes: stored.size }, 'task succeeded');
    return { outcome: 'succeeded', code: null, recorded: true, next };
  }
  // A zombie's output: another attempt owns the task now, or it was canceled.
  await deleteResult(deps.blobs, key);
  log.warn('lease lost before completion; output discarded');
  return { outcome: 'lost', code: 'lease_lost' };
}

/** How many earlier attempts' keys a completion looks at: tokens grow by one per claim of the task. */
const EARLIER_ATTEMPTS_CHECKED = 10;

/**
 * A process killed after storing its output but before completing leaves that output under its own
 * attempt's key, and no process will ever complete with it: the attempt that does complete deletes
 * the outputs of the attempts before it (deleting a key that was never written is harmless).
 */
async function discardEarlierOutputs(blobs: BlobStore, taskId: string, token: number): Promise<void> {
  for (let earlier = token - 1; earlier >= Math.max(1, token - EARLIER_ATTEMPTS_CHECKED); earlier--)
    await deleteResult(blobs, videoKey(taskId, earlier));
}

/** The video and its stills in the blob store, under the attempt's key. */
function keepVideo(deps: TaskRunnerDeps, key: string, produced: Verified, workDir: WorkDir, log: Logger) {
  const tracing = deps.tracing ?? noTracing;
  return tracing.withSpan('task.store', undefined, async () => {
    const put = await tracing.withSpan(
      'blob.put',
      { kind: 'client', attributes: { 'vidgen.blob.key': key } },
      async (span) => {
        const blob = await deps.blobs.putFile(key, produced.path, 'video/mp4');
        span.setAttributes({ 'vidgen.blob.bytes': blob.size });
        return blob;
      },
    );
    if (deps.makeStills) await storeVariants(deps.blobs, deps.makeStills, key, produced, workDir, log);
    return put;
  });
}

/**
 * Progress is written at most every whole percent (~100 small updates per render). A refused
 * write means the lease is gone (canceled from another process, or reclaimed): stop at once
 * rather than at the next heartbeat.
 */
function progressReporter(deps: TaskRunnerDeps, lease: Lease, controller: AbortController): (fraction: number) => void {
  let written = 0;
  return (fraction) => {
    const percent = Math.floor(Math.max(0, Math.min(1, fraction)) * 100);
    if (percent <= written || percent >= 100) return;
    written = percent;
    // Up to a hundred writes a render: outside the trace, where they would drown the steps that matter.
    (deps.tracing ?? noTracing)
      .untraced(() => deps.tasks.reportProgress(lease, percent))
      .then(
        async (ok) =>
          ok ? deps.events.taskChanged(lease.id) : controller.abort(await leaseLostReason(deps.tasks, lease.id)),
        () => undefined,
      );
  };
}

/** A lease lost to a cancel (from another process) is that cancel; any other loss is a handover. */
export async function leaseLostReason(tasks: TaskStore, taskId: string): Promise<StopReason> {
  const task = await tasks.get(taskId).catch(() => undefined);
  return task?.status === 'canceled' ? 'canceled' : 'lease_lost';
}

async function settleFailure(
  deps: TaskRunnerDeps,
  task: Task,
  lease: Lease,
  error: unknown,
  signal: AbortSignal,
  log: Logger,
): Promise<Ending> {
  const reason = signal.aborted ? (signal.reason as StopReason) : undefined;
  if (reason === 'shutdown') {
    // Hand the task back without using up the attempt, so another worker starts it at once.
    await deps.tasks.release(lease, deps.clock());
    log.info('attempt handed back at shutdown');
    return { outcome: 'released', code: null };
  }
  if (reason === 'canceled') return { outcome: 'canceled', code: 'canceled' };
  if (!reason && isStorageFault(error)) return handBack(deps, lease, error, log);
  const known = toTaskFailure(error);
  // The backend's checkpoint write was refused: like a lost heartbeat, nothing more may be written.
  if (reason === 'lease_lost' || (!reason && known?.code === 'lease_lost'))
    return { outcome: 'lost', code: 'lease_lost' };
  // At a deadline the backend may say the deadline is final (a relay that canceled a paid upstream job).
  const failure =
    reason === 'deadline'
      ? known?.code === 'deadline_exceeded'
        ? known
        : FAILURES.deadlineExceeded()
      : (known ?? FAILURES.internalError());
  if (!known && !reason) log.error({ err: error }, 'task failed with an unexpected error');
  const info = { code: failure.code, message: failure.message };
  // Unexpected errors and deadlines are retryable: a retry is cheap, a lost paid task is not.
  if (failure.retryable && task.attempts < deps.maxAttempts) {
    const at = deps.clock() + retryDelayMs(task.attempts);
    if (await deps.tasks.retry(lease, info, at)) deps.metrics.retried(task.backend);
    log.warn({ code: info.code, retryAt: at }, 'transient failure; retrying');
    return { outcome: 'retry', code: failure.code };
  }
  const failed = await deps.tasks.fail(lease, info, deps.clock());
  if (failed) await deps.inputs.discard(taskInputs(task.params));
  log.info({ code: info.code }, 'task failed');
  return { outcome: 'failed', code: failure.code, recorded: failed };
}

/**
 * After a storage fault, gives the task back without using up the attempt: neither the task nor the worker is at fault.
 */
const STORAGE_FAULT_BACKOFF_MS = 2000;

/**
 * A storage fault (database unreachable, work or blob directory full or read-only) is nobody's
 * fault: the task goes back to the queue a little later without using up an attempt, so it
 * runs again once the storage is back, and never ends as `worker_lost` because of it.
 */
async function handBack(deps: TaskRunnerDeps, lease: Lease, error: unknown, log: Logger): Promise<Ending> {
  log.warn({ err: error }, 'storage fault; task handed back to the queue');
  const released = await persistently(
    () => deps.tasks.release(lease, deps.clock() + STORAGE_FAULT_BACKOFF_MS),
    lease.expiresAt,
    deps.clock,
  ).catch(() => false);
  // Not released: the lease runs out and the reaper returns the task to the queue.
  return released ? { outcome: 'released', code: null } : { outcome: 'lost', code: null };
}
