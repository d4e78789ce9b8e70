import type { QueueSnapshot } from '../domain/queue-snapshot.ts';
import type { Task } from '../domain/task.ts';

/** A lane's snapshot is read at most this often… */
const MIN_INTERVAL_MS = 1000;
/** …and no more often than this many times what reading the last one took. */
const COST_FACTOR = 20;

interface Lane {
  /** The last snapshot read; polls answer from it while the next one is read. */
  current?: QueueSnapshot;
  reading?: Promise<QueueSnapshot>;
  readAt: number;
  tookMs: number;
}

/**
 * Where queued tasks stand in their lanes, from snapshots of each lane (queue-snapshot.ts) shared
 * by every poll. Reading a snapshot costs in proportion to the lane's queue, so it is read at most
 * once a second, and no more often than every 20 times what the last read took: however long the
 * queue, reading it takes at most a twentieth of the process's time. And once a lane has a
 * snapshot, polls answer from it while the next one is read: only a lane's first poll waits.
 */
export class LanePositions {
  private readonly lanes = new Map<string, Lane>();

  constructor(
    private readonly read: (backend: string) => Promise<QueueSnapshot>,
    private readonly clock: () => number,
    /** Measures how long a read took (wall time; the clock may be a test's). */
    private readonly stopwatch: () => number = () => performance.now(),
  ) {}

  async positionOf(task: Pick<Task, 'backend' | 'accountId' | 'id'>): Promise<number> {
    const lane = this.lane(task.backend);
    return (lane.current ?? (await (lane.reading as Promise<QueueSnapshot>))).positionOf(task);
  }

  private lane(backend: string): Lane {
    let lane = this.lanes.get(backend);
    if (!lane) {
      lane = { readAt: Number.NEGATIVE_INFINITY, tookMs: 0 };
      this.lanes.set(backend, lane);
    }
    const now = this.clock();
    if (!lane.reading && now >= lane.readAt + Math.max(MIN_INTERVAL_MS, COST_FACTOR * lane.tookMs))
      this.refresh(backend, lane, now);
    return lane;
  }

  private refresh(backend: string, lane: Lane, now: number): void {
    const started = this.stopwatch();
    const reading = this.read(backend);
    lane.reading = reading;
    lane.readAt = now;
    reading.then(
      (snapshot) => {
        lane.current = snapshot;
        lane.tookMs = this.stopwatch() - started;
        lane.reading = undefined;
      },
      // A failed read is not waited out: the next poll tries again (the one waiting gets the error).
      () => {
        lane.readAt = Number.NEGATIVE_INFINITY;
        lane.reading = undefined;
      },
    );
  }
}
