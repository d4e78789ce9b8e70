/**
 * The claims of one lane (a backend) in a worker (worker.ts): the slots waiting when a claim starts
 * share it, so one transaction serves them all.
 */
import type { Logger } from 'pino';
import type { Claimed, ClaimRequest, TaskStore } from '../store/task-store.ts';
import { isStorageFault } from '../domain/storage-faults.ts';
import { faultLog } from './fault-log.ts';

/** A lane claim's outcome, the wake-up count its query started after, and when it was asked for. */
export interface ClaimAnswer {
  claimed: Claimed | undefined;
  since: number;
  askedAt: number;
}

export interface ClaimerDeps {
  tasks: TaskStore;
  logger: Logger;
  clock: () => number;
  claimRequest(backend: string): ClaimRequest;
  /** Wake-ups so far: a claim that started before the latest one may have missed its task. */
  wakes(): number;
}

/**
 * Claims for a lane's idle slots: the slots waiting when a claim starts share it, and it asks for
 * that many tasks in one transaction (one fair-order read, one commit) instead of one claim per
 * slot. Tasks are claimed only for slots already waiting, so no claimed task waits on a slot.
 */
export function laneClaimer(backend: string, deps: ClaimerDeps): () => Promise<ClaimAnswer> {
  const ready: Claimed[] = [];
  let waiting = 0;
  /** The claim under way; it resolves to the wake-up count its query started after. */
  let inflight: Promise<number> | undefined;
  /** When the claim that filled `ready` was asked for: where a claimed task's claim span starts. */
  let askedAt = 0;
  /** The last claim got all it asked for: more work is likely waiting. */
  let filled = false;
  const faults = faultLog(60_000, deps.clock);
  const claimFor = async (count: number) => {
    const since = deps.wakes();
    filled = false;
    askedAt = deps.clock();
    try {
      const request = deps.claimRequest(backend);
      const got =
        count === 1
          ? [await deps.tasks.claim(request)].filter((c) => c !== undefined)
          : await deps.tasks.claimSeveral(request, count);
      ready.push(...got);
      filled = got.length === count;
      const lasted = faults.recovered();
      if (lasted !== undefined) deps.logger.info({ backend, lastedMs: lasted }, 'claims work again');
    } catch (err) {
      // A lost database or a full disk is expected to pass (invariant 9): a warning, not an error,
      // said once and then once a minute while it lasts.
      const { say, unsaid } = faults.failed();
      if (say) deps.logger[isStorageFault(err) ? 'warn' : 'error']({ err, backend, unsaid }, 'claim failed');
    }
    return since;
  };
  return async () => {
    waiting++;
    try {
      for (;;) {
        const next = ready.shift();
        if (next) return { claimed: next, since: deps.wakes(), askedAt };
        inflight ??= claimFor(waiting).finally(() => {
          inflight = undefined;
        });
        const since = await inflight;
        const got = ready.shift();
        // Others took what was claimed: claim again only if the queue seemed to have more.
        if (got || !filled) return { claimed: got, since, askedAt };
      }
    } finally {
      waiting--;
    }
  };
}
