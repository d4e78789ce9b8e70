import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { TaskStore } from '../store/task-store.ts';
import type { BlobStore } from '../blobs/blob-store.ts';
import { GenerationError, type Generator } from '../generators/generator.ts';
import type { ImageRefResolver } from './image-refs.ts';
import type { TaskEvents } from './task-events.ts';
import type { Lease, Task, TaskErrorInfo } from './task.ts';
import { retryDelayMs } from './retry-policy.ts';

export interface TaskRunnerDeps {
  tasks: TaskStore;
  blobs: BlobStore;
  images: ImageRefResolver;
  generators: Record<string, Generator>;
  /** Told of every state and progress change, so long-polls in this process answer at once. */
  events: TaskEvents;
  /** Decodes an input image under the pixel cap and re-encodes it as PNG; throws a GenerationError when it can't. */
  normalizeImage(bytes: Buffer): Promise<Buffer>;
  /** Throws a GenerationError unless the file is the video that was asked for (DESIGN invariant 3). */
  verifyVideo(file: string, expect: { width: number; height: number; durationSeconds: number }): Promise<void>;
  maxAttempts: number;
  retentionMs: number;
  workRoot: string;
  logger: Logger;
  clock: () => number;
}

const INTERNAL_ERROR: TaskErrorInfo = { code: 'internal_error', message: 'The video could not be generated because of an internal error.' };

/**
 * Runs one claimed task to its end. Every write presents the lease; when a write is refused
 * the lease was lost (another worker owns the task now) and this attempt's output is dropped.
 */
export async function runTask(deps: TaskRunnerDeps, task: Task, lease: Lease, signal: AbortSignal): Promise<void> {
  const workDir = await mkdtemp(join(deps.workRoot, 'task-'));
  const log = deps.logger.child({ taskId: task.id, attempt: task.attempts });
  deps.events.taskChanged(task.id);
  try {
    const outcome = await produce(deps, task, lease, signal, workDir);
    if (!outcome.ok) return await settleFailure(deps, task, lease, outcome.error, signal, log);
    const key = `videos/${task.id}/${lease.token}.mp4`;
    const stored = await deps.blobs.putFile(key, outcome.path, 'video/mp4');
    const now = deps.clock();
    const etag = `"${await sha256File(outcome.path)}"`;
    if (await deps.tasks.complete(lease, { blobKey: key, bytes: stored.size, etag }, now, now + deps.retentionMs)) {
      await deps.images.discard(task.params.images);
      log.info({ bytes: stored.size, ms: now - (task.startedAt ?? now) }, 'task succeeded');
    } else {
      await deps.blobs.delete(key);
      log.warn('lease lost before completion; output discarded');
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
    deps.events.taskChanged(task.id);
  }
}

type Produced = { ok: true; path: string } | { ok: false; error: unknown };

async function produce(deps: TaskRunnerDeps, task: Task, lease: Lease, signal: AbortSignal, workDir: string): Promise<Produced> {
  try {
    const generator = deps.generators[task.backend];
    if (!generator) throw new GenerationError('backend_unavailable', 'No backend is configured for this model.', true);
    const images = await loadImages(deps, task, signal, workDir);
    const { width, height, duration, fps, prompt, seed } = task.params;
    const progress = progressReporter(deps, lease);
    const output = await generator.generate(
      { taskId: task.id, attempt: lease.token, kind: task.kind, prompt, width, height, duration, fps, seed, images },
      { signal, workDir, onProgress: progress },
    );
    await deps.verifyVideo(output.path, { width, height, durationSeconds: duration });
    return { ok: true, path: output.path };
  } catch (error) {
    return { ok: false, error };
  }
}

async function loadImages(deps: TaskRunnerDeps, task: Task, signal: AbortSignal, workDir: string): Promise<string[]> {
  const paths: string[] = [];
  for (const [index, ref] of task.params.images.entries()) {
    const png = await deps.normalizeImage(await deps.images.load(task.accountId, ref, signal));
    const path = join(workDir, `input-${index}.png`);
    await writeFile(path, png);
    paths.push(path);
  }
  return paths;
}

/** Progress is written at most every whole percent, so a long render costs ~100 small updates. */
function progressReporter(deps: TaskRunnerDeps, lease: Lease): (fraction: number) => void {
  let written = 0;
  return (fraction) => {
    const percent = Math.floor(Math.max(0, Math.min(1, fraction)) * 100);
    if (percent <= written || percent >= 100) return;
    written = percent;
    deps.tasks.reportProgress(lease, percent).then(
      (ok) => ok && deps.events.taskChanged(lease.taskId),
      () => undefined,
    );
  };
}

async function settleFailure(deps: TaskRunnerDeps, task: Task, lease: Lease, error: unknown, signal: AbortSignal, log: Logger) {
  if (signal.aborted) {
    // Shutdown hands the task to another worker; a lost lease means someone else has it already.
    if (signal.reason === 'shutdown') await deps.tasks.release(lease, deps.clock());
    log.info({ reason: String(signal.reason) }, 'attempt stopped');
    return;
  }
  const known = error instanceof GenerationError;
  const info: TaskErrorInfo = known ? { code: error.code, message: error.message } : INTERNAL_ERROR;
  if (!known) log.error({ err: error }, 'task failed with an unexpected error');
  // Unexpected errors count as transient: a retry is cheap, a lost paid task is not.
  const transient = known ? error.transient : true;
  if (transient && task.attempts < deps.maxAttempts) {
    const at = deps.clock() + retryDelayMs(task.attempts);
    await deps.tasks.retry(lease, info, at);
    log.warn({ code: info.code, retryAt: at }, 'transient failure; retrying');
    return;
  }
  if (await deps.tasks.fail(lease, info, deps.clock())) await deps.images.discard(task.params.images);
  log.info({ code: info.code }, 'task failed');
}

function sha256File(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('base64url').slice(0, 32)));
  });
}
