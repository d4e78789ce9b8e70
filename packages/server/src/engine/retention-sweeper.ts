import type { Logger } from 'pino';
import type { TaskStore } from '../store/task-store.ts';
import type { BlobStore } from '../blobs/blob-store.ts';
import { deleteResult } from './video-variants.ts';

/**
 * Ends the life of results past retention: the task becomes `expired` first (one statement,
 * so with many processes each task is taken by one sweeper), then its file is deleted.
 */
export function startRetentionSweeper(deps: {
  tasks: TaskStore;
  blobs: BlobStore;
  intervalMs: number;
  logger: Logger;
  clock: () => number;
}): { stop(): void; sweep(): Promise<number> } {
  async function sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const expired = await deps.tasks.expireDue(deps.clock(), 100);
      for (const task of expired) if (task.result) await deleteResult(deps.blobs, task.result.blobKey);
      total += expired.length;
      if (expired.length < 100) return total;
    }
  }
  const timer = setInterval(() => {
    sweep().catch((err) => deps.logger.error({ err }, 'retention sweep failed'));
  }, deps.intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer), sweep };
}
