import { FINISHED_STATUSES, type Task } from '../domain/task.ts';

/** Enough for every task a busy process is polled or downloaded about at once; ~1–2 KB each. */
const MAX_ENTRIES = 5_000;

/**
 * Finished tasks, remembered so that polls and downloads of them do not read the database each
 * time. A finished task never changes again, with one exception known in advance: a succeeded
 * task becomes `expired` at its `expiresAt`, so it is remembered only until then. Nothing else
 * writes a finished row (the cost is set in the same transaction as the transition), and rows are
 * never deleted, so every process may keep its own copy: no invalidation is needed, even across
 * processes. A poll of a done task spent about a quarter of its CPU on this one read
 * (docs/performance.md).
 *
 * Eviction is first in, first out: the tasks polled most are the newest ones.
 */
export class FinishedTasks {
  private readonly tasks = new Map<string, Task>();

  /** The task if it is remembered and, at `now`, still what the database holds. */
  get(id: string, now: number): Task | undefined {
    const task = this.tasks.get(id);
    if (task && !isSettled(task, now)) {
      this.tasks.delete(id);
      return undefined;
    }
    return task;
  }

  /** Drops a task whose life was ended early (endNow): this process answers from the database again. */
  forget(id: string): void {
    this.tasks.delete(id);
  }

  /** Remembers a task just read from the database, if nothing can change it before it is read again. */
  remember(task: Task, now: number): void {
    if (!isSettled(task, now)) return;
    if (this.tasks.size >= MAX_ENTRIES) this.tasks.delete(this.tasks.keys().next().value as string);
    this.tasks.set(task.id, task);
  }
}

/** Finished, and (for a succeeded task) not yet due to expire. */
function isSettled(task: Task, now: number): boolean {
  if (!FINISHED_STATUSES.includes(task.status)) return false;
  return task.status !== 'succeeded' || task.expiresAt === null || task.expiresAt > now;
}
