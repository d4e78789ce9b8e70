import type { Logger } from 'pino';
import type { BatchStore } from '../../store/batch-store.ts';
import type { Batch } from '../../domain/batch.ts';
import type { Lease } from '../../domain/lease.ts';

/** What the sweeper hands a claimed batch to (engine/batches/batch-runner.ts, loaded on first use). */
export interface ClaimedBatchWork {
  work(claimed: { batch: Batch; lease: Lease }, stopping: () => boolean): Promise<void>;
}

export interface BatchSweeper {
  /** Runs until no batch has work now; what a test with its own clock calls. */
  sweep(): Promise<void>;
  /** Stops claiming, and lets the batch in hand stop at its next chunk (its lease is given back). */
  stop(): Promise<void>;
}

/**
 * The batch sweeper of a worker process (docs/batch.md): every `intervalMs` it claims batches
 * with work to do, one at a time, under a lease (store/batch-store.ts), so any number of processes
 * share the batches and a killed one's batch is taken over once its lease runs out. The runner is
 * loaded on the first claim: a service nobody sends batches never loads it.
 */
export function startBatchSweeper(deps: {
  batches: BatchStore;
  owner: string;
  leaseMs: number;
  intervalMs: number;
  clock: () => number;
  logger: Logger;
  load: () => Promise<ClaimedBatchWork>;
}): BatchSweeper {
  let stopped = false;
  let running: Promise<void> | undefined;
  async function drainDue(): Promise<void> {
    // A batch still due after its step (a cancelled line not yet ended) waits for the next sweep.
    const worked = new Set<string>();
    while (!stopped) {
      const claimed = await deps.batches.claim(deps.owner, deps.clock(), deps.leaseMs, [...worked]);
      if (!claimed) return;
      worked.add(claimed.batch.id);
      try {
        await (await deps.load()).work(claimed, () => stopped);
      } catch (err) {
        // Taken again at the next sweep, from what its row says: nothing of a failed step is lost.
        deps.logger.warn({ err, batch: claimed.batch.id }, 'batch step failed; it is retried');
        await deps.batches.release(claimed.lease).catch(() => undefined);
        return;
      }
      await deps.batches.release(claimed.lease);
    }
  }
  function sweep(): Promise<void> {
    running ??= drainDue().finally(() => {
      running = undefined;
    });
    return running;
  }
  const timer = setInterval(() => {
    sweep().catch((err) => deps.logger.error({ err }, 'batch sweep failed'));
  }, deps.intervalMs);
  timer.unref();
  return {
    sweep,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
