import {
  APIUserAbortError,
  NotFoundError,
  ResultExpiredError,
  TaskFailedError,
  WaitTimeoutError,
  type Family,
  type VidgenClient,
} from '@vidgen/client';
import type { TaskItem, WireTask } from './task-item.ts';

/**
 * A browser keeps about six connections per origin, and a task's event stream holds one until the
 * task ends (a long-poll, where the server has no streams, for up to LONG_POLL_SECONDS); two held
 * connections leave room for submits, uploads and video streams. Further tasks are polled at the
 * server's Retry-After (A 4 s, B 15 s) until a slot frees.
 */
const MAX_HELD_POLLS = 2;
const LONG_POLL_SECONDS = 25;
/** The page may stay open all day; a wait that runs out simply starts again. */
const MAX_WAIT_MS = 6 * 3600_000;
const RETRY_AFTER_ERROR_MS = 30_000;

export interface WatcherEvents {
  update(family: Family, task: WireTask): void;
  gone(id: string): void;
  /** A poll failed for good; true when handled (e.g. the key was revoked). */
  error(id: string, err: unknown): boolean;
}

interface Watch {
  item: TaskItem;
  abort: AbortController;
  held: boolean;
}

/**
 * Follows every unfinished task, and only those, through the SDK's waitFor: live by the task's
 * event stream (docs/streams.md) for the first ones, long-polling where the server has no streams,
 * at intervals for the rest; backs off on errors.
 */
export class TaskWatcher {
  private readonly watches = new Map<string, Watch>();
  private stopped = false;

  constructor(
    private readonly client: VidgenClient,
    private readonly events: WatcherEvents,
  ) {}

  watch(item: TaskItem): void {
    if (this.stopped || item.phase !== 'pending' || this.watches.has(item.id)) return;
    const held = [...this.watches.values()].filter((w) => w.held).length < MAX_HELD_POLLS;
    const watch: Watch = { item, abort: new AbortController(), held };
    this.watches.set(item.id, watch);
    void this.run(watch).finally(() => {
      if (this.watches.get(item.id) !== watch) return;
      this.watches.delete(item.id);
      if (held) this.promote();
    });
  }

  unwatch(id: string): void {
    const watch = this.watches.get(id);
    this.watches.delete(id);
    watch?.abort.abort();
    if (watch?.held) this.promote();
  }

  stopAll(): void {
    this.stopped = true;
    for (const watch of this.watches.values()) watch.abort.abort();
    this.watches.clear();
  }

  private async run({ item, abort, held }: Watch): Promise<void> {
    try {
      // onProgress sees each state as the stream brings it, and the final answer (done, failed or
      // expired) before waitFor returns or throws.
      await this.client.waitFor(item.id, {
        family: item.family,
        stream: held,
        longPollSeconds: held ? LONG_POLL_SECONDS : 0,
        maxWaitMs: MAX_WAIT_MS,
        signal: abort.signal,
        onProgress: (_view, task) => this.events.update(item.family, task),
      });
    } catch (err) {
      if (err instanceof APIUserAbortError || err instanceof TaskFailedError || err instanceof ResultExpiredError)
        return;
      if (err instanceof NotFoundError) return this.events.gone(item.id);
      if (err instanceof WaitTimeoutError) return this.retryLater(item, 0);
      if (!this.events.error(item.id, err)) this.retryLater(item, RETRY_AFTER_ERROR_MS);
    }
  }

  /** A slot is free: the oldest task polled at intervals is switched to a held poll. */
  private promote(): void {
    const next = [...this.watches.values()].find((w) => !w.held);
    if (!next) return;
    this.watches.delete(next.item.id);
    next.abort.abort();
    this.watch(next.item);
  }

  /** Runs after `run` settled and its entry was removed, so `watch` starts afresh. */
  private retryLater(item: TaskItem, ms: number): void {
    setTimeout(() => this.watch(item), ms);
  }
}
