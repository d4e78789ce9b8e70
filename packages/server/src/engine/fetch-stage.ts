/**
 * A lane's fetch stage: a claimed task whose inputs must be fetched (images, an input video) loads
 * them here, before it takes a render slot, with a concurrency of its own. So a slot only ever waits
 * on a render: an input URL that never answers holds a place in this stage for its fetch timeout,
 * never a render slot (on a GPU host, the most expensive wait there is).
 *
 * A task in the stage runs its attempt as usual (lease, heartbeat, cancel, deadline: invariant 1,
 * docs/architecture.md); once its inputs are in, it waits for a slot, and a slot that comes free
 * takes the task that has waited longest before it claims anything new (worker.ts).
 */
import { FAILURES } from '../domain/task-failure.ts';

interface Waiting<T> {
  /** Gives the task its render slot. */
  grant(): void;
  /** The attempt's end, which the slot that took it waits for. */
  done(): Promise<T>;
}

export class FetchStage<T> {
  /** Tasks in the stage: fetching, or fetched and waiting for a slot. */
  private inStage = 0;
  private readonly waiting: Array<Waiting<T>> = [];

  /**
   * @param capacity tasks that may fetch (or wait for a slot) at once in this lane
   * @param onWaiting told when a task is ready for a slot, to wake an idle one
   */
  constructor(
    private readonly capacity: number,
    private readonly onWaiting: () => void,
  ) {}

  hasRoom(): boolean {
    return this.inStage < this.capacity;
  }

  hasWaiting(): boolean {
    return this.waiting.length > 0;
  }

  /**
   * Runs an attempt in the stage. `attempt` is handed `untilSlot`, to await once its inputs are
   * loaded: it resolves when a slot takes the task, and rejects (canceled) when `signal` aborts
   * first. The returned promise is the attempt's end.
   */
  run(attempt: (untilSlot: (signal: AbortSignal) => Promise<void>) => Promise<T>): Promise<T> {
    this.inStage++;
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      this.inStage--;
    };
    // The attempt's end, known once `attempt` has been called; a slot asks for it only later.
    let done: Promise<T> | undefined;
    const untilSlot = (signal: AbortSignal) =>
      new Promise<void>((resolve, reject) => {
        if (signal.aborted) return reject(FAILURES.canceled());
        const abandon = () => {
          const at = this.waiting.indexOf(entry);
          if (at >= 0) this.waiting.splice(at, 1);
          leave();
          reject(FAILURES.canceled());
        };
        const entry: Waiting<T> = {
          grant: () => {
            signal.removeEventListener('abort', abandon);
            leave();
            resolve();
          },
          done: () => done as Promise<T>,
        };
        signal.addEventListener('abort', abandon, { once: true });
        this.waiting.push(entry);
        this.onWaiting();
      });
    done = attempt(untilSlot).finally(leave);
    return done;
  }

  /** The task that has waited longest for a slot, now given it; the slot waits for `done`. */
  take(): Promise<T> | undefined {
    const next = this.waiting.shift();
    if (!next) return undefined;
    next.grant();
    return next.done();
  }
}
