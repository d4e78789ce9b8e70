import type { Logger } from 'pino';
import type { TaskStore } from '../store/task-store.ts';
import type { FileStore } from '../store/file-store.ts';
import type { BlobStore } from '../blobs/blob-store.ts';
import { deleteResult } from './video-variants.ts';

/**
 * Ends the life of results past retention: the task becomes `expired` first (one statement,
 * so with many processes each task is taken by one sweeper), then its file is deleted. Files with
 * an expiry go the same way: bytes first, then the row, so a sweep cut short is finished by the next
 * (two sweepers deleting the same file is harmless).
 */
export function startRetentionSweeper(deps: {
  tasks: TaskStore;
  blobs: BlobStore;
  files?: FileStore;
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
      if (expired.length < 100) return total + (await sweepFiles());
    }
  }
  async function sweepFiles(): Promise<number> {
    if (!deps.files) return 0;
    let total = 0;
    for (;;) {
      const due = await deps.files.due(deps.clock(), 100);
      for (const file of due) {
        await deps.blobs.delete(file.blobKey);
        await deps.files.delete(file.id);
      }
      total += due.length;
      if (due.length < 100) return total;
    }
  }
  const timer = setInterval(() => {
    sweep().catch((err) => deps.logger.error({ err }, 'retention sweep failed'));
  }, deps.intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer), sweep };
}
