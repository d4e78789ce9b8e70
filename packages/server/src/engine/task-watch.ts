import type { Task } from '../domain/task.ts';
import type { TaskEvents } from '../domain/task-events.ts';
import type { TaskStore } from '../store/task-store.ts';

export interface TaskWatchDeps {
  tasks: Pick<TaskStore, 'get' | 'revisions'>;
  /**
   * The wake-ups of this process, and of the others where the database carries them
   * (store/sql/postgres-wakeups.ts).
   */
  events: TaskEvents;
  /**
   * How often the revisions of every watched task are read again, all in one query, for changes
   * no hint announced: a hint lost while the listener reconnected, a task the reaper put back, a
   * worker in another process where the database carries no hints (SQLite).
   */
  recheckMs: number;
  /** Told of a read that failed; the next hint or recheck reads again. */
  onReadError?: (err: unknown) => void;
}

interface Watcher {
  /** The highest revision this watcher has been given (or said it has seen). */
  after: number;
  deliver(task: Task): void;
}

interface Watched {
  watchers: Set<Watcher>;
  reading: boolean;
  /** A hint came while a read was under way: read once more when it is done. */
  again: boolean;
}

/** Ids per recheck query: one statement's parameters stay well inside every database's limit. */
const RECHECK_BATCH = 500;

/**
 * The watchers of task streams in one process, sharing its wake-ups: no watcher holds a database
 * connection or reads on a timer of its own. A task is read when a hint for it arrives, once for
 * all its watchers, and each watcher is given the task when its revision passes the last one it
 * had (docs/streams.md). A periodic recheck reads the revisions of every watched task in one
 * query and reads only the tasks that moved.
 */
export class TaskWatch {
  private readonly watched = new Map<string, Watched>();
  private readonly offChanged: () => void;
  private timer: NodeJS.Timeout | undefined;
  private rechecking = false;

  constructor(private readonly deps: TaskWatchDeps) {
    this.offChanged = deps.events.onChanged((taskId) => {
      const watched = this.watched.get(taskId);
      if (watched) this.read(taskId, watched);
    });
  }

  /** Tasks watched now (each by one watcher or more). */
  get size(): number {
    return this.watched.size;
  }

  /**
   * Gives `deliver` the task each time its revision passes `after` and every revision given
   * before, until the returned function is called. The task is read at the start, so a change
   * made between the caller's own read and this call is not missed; a read already under way is
   * joined instead (it sees every change before it began, and a hint for any change after sends
   * another).
   */
  watch(taskId: string, after: number, deliver: (task: Task) => void): () => void {
    let watched = this.watched.get(taskId);
    if (!watched) {
      watched = { watchers: new Set(), reading: false, again: false };
      this.watched.set(taskId, watched);
    }
    const watcher: Watcher = { after, deliver };
    watched.watchers.add(watcher);
    if (!watched.reading) this.read(taskId, watched);
    this.timer ??= setInterval(() => void this.recheck(), this.deps.recheckMs).unref();
    const entry = watched;
    return () => {
      entry.watchers.delete(watcher);
      if (entry.watchers.size > 0 || this.watched.get(taskId) !== entry) return;
      this.watched.delete(taskId);
      if (this.watched.size === 0) this.stopRechecks();
    };
  }

  /** Stops listening for hints; watchers still registered get nothing more. */
  close(): void {
    this.offChanged();
    this.watched.clear();
    this.stopRechecks();
  }

  private stopRechecks(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One read at a time per task; hints that arrive meanwhile are answered by one more read after it. */
  private read(taskId: string, watched: Watched): void {
    if (watched.reading) {
      watched.again = true;
      return;
    }
    watched.reading = true;
    void (async () => {
      try {
        do {
          watched.again = false;
          const task = await this.deps.tasks.get(taskId);
          if (task) deliver(watched, task);
        } while (watched.again && watched.watchers.size > 0);
      } catch (err) {
        this.deps.onReadError?.(err);
      } finally {
        watched.reading = false;
      }
    })();
  }

  private async recheck(): Promise<void> {
    if (this.rechecking) return;
    this.rechecking = true;
    try {
      const ids = [...this.watched.keys()];
      for (let i = 0; i < ids.length; i += RECHECK_BATCH) {
        const revisions = await this.deps.tasks.revisions(ids.slice(i, i + RECHECK_BATCH));
        for (const [taskId, revision] of revisions) {
          const watched = this.watched.get(taskId);
          // A read under way delivers it (or the next recheck finds it again): no second read for it.
          if (watched && !watched.reading && [...watched.watchers].some((w) => revision > w.after))
            this.read(taskId, watched);
        }
      }
    } catch (err) {
      this.deps.onReadError?.(err);
    } finally {
      this.rechecking = false;
    }
  }
}

function deliver(watched: Watched, task: Task): void {
  for (const watcher of [...watched.watchers]) {
    if (task.revision <= watcher.after) continue;
    watcher.after = task.revision;
    watcher.deliver(task);
  }
}
