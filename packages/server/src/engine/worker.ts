import type { Logger } from 'pino';
import type { Claimed, ClaimRequest, TaskStore } from '../store/task-store.ts';
import type { Lease } from '../domain/lease.ts';
import { leaseLostReason, runTask, type StopReason, type TaskRunnerDeps } from './task-runner.ts';
import { announceWorker, stopLeaseHolder } from '../domain/worker-lifecycle.ts';
import { isStorageFault } from '../domain/storage-faults.ts';
import { noTracing, parseTraceContext } from '../observability/tracing/tracing.ts';
import { taskAttributes } from './task-spans.ts';

export interface Lane {
  /** Tasks of this backend run at once in this process (a GPU host with N slots: N). */
  slots: number;
  /** Hard limit of one attempt; past it the attempt is stopped and retried. */
  deadlineMs: number;
}

export interface WorkerDeps extends TaskRunnerDeps {
  tasks: TaskStore;
  /** Unique per process: lease owner and log field. */
  owner: string;
  lanes: Record<string, Lane>;
  /** Most tasks one account may run at once in a lane (0: no cap); fairness applies either way. */
  maxRunningPerAccount: number;
  /**
   * The share of a lane's slots flex and batch tasks may hold while tasks of a higher tier are
   * queued or running in it (at least one slot); absent: 0.25. Alone they take every slot.
   */
  lowTierShare?: number;
  leaseMs: number;
  heartbeatMs: number;
  /** How often an idle slot looks for work when no wake-up hint arrives. */
  pollMs: number;
  logger: Logger;
}

export interface Worker {
  start(): void;
  /**
   * Stops claiming, lets running attempts finish for up to `graceMs`, then stops them and hands
   * their tasks back to the queue so another worker starts them at once.
   */
  stop(graceMs?: number): Promise<void>;
}

/** A lane claim's outcome, the wake-up count its query started after, and when it was asked for. */
interface ClaimAnswer {
  claimed: Claimed | undefined;
  since: number;
  askedAt: number;
}

export function createWorker(deps: WorkerDeps): Worker {
  const loops = new Set<Promise<void>>();
  const running = new Map<string, AbortController>();
  const wakers = new Set<() => void>();
  const unsubscribe: Array<() => void> = [];
  let stopped = false;
  let reaper: NodeJS.Timeout | undefined;

  /** Wake-ups so far: a claim that started before the latest one may have missed its task. */
  let wakes = 0;
  const wakeAll = () => {
    wakes++;
    for (const wake of [...wakers]) wake();
  };
  /** Waits for a wake-up after the `since`-th (at once if one came already) or `pollMs`. */
  const idle = (since: number) =>
    new Promise<void>((resolve) => {
      if (wakes !== since) return resolve();
      const timer = setTimeout(done, deps.pollMs);
      function done() {
        clearTimeout(timer);
        wakers.delete(done);
        resolve();
      }
      wakers.add(done);
    });

  /**
   * Claims for a lane's idle slots: the slots waiting when a claim starts share it, and it asks for
   * that many tasks in one transaction (one fair-order read, one commit) instead of one claim per
   * slot. Tasks are claimed only for slots already waiting, so no claimed task waits on a slot.
   */
  function laneClaimer(backend: string): () => Promise<ClaimAnswer> {
    const ready: Claimed[] = [];
    let waiting = 0;
    /** The claim under way; it resolves to the wake-up count its query started after. */
    let inflight: Promise<number> | undefined;
    /** When the claim that filled `ready` was asked for: where a claimed task's claim span starts. */
    let askedAt = 0;
    /** The last claim got all it asked for: more work is likely waiting. */
    let filled = false;
    const claimFor = async (count: number) => {
      const since = wakes;
      filled = false;
      askedAt = deps.clock();
      try {
        const request = claimRequest(backend);
        const got =
          count === 1
            ? [await deps.tasks.claim(request)].filter((c) => c !== undefined)
            : await deps.tasks.claimSeveral(request, count);
        ready.push(...got);
        filled = got.length === count;
      } catch (err) {
        // A lost database is expected to pass (invariant 9): a warning each poll, not an error.
        deps.logger[isStorageFault(err) ? 'warn' : 'error']({ err }, 'claim failed');
      }
      return since;
    };
    return async () => {
      waiting++;
      try {
        for (;;) {
          const next = ready.shift();
          if (next) return { claimed: next, since: wakes, askedAt };
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

  function claimRequest(backend: string): ClaimRequest {
    return {
      owner: deps.owner,
      backend,
      leaseMs: deps.leaseMs,
      now: deps.clock(),
      maxRunningPerAccount: deps.maxRunningPerAccount,
      lowRankSlots: Math.max(1, Math.floor((deps.lowTierShare ?? 0.25) * (deps.lanes[backend]?.slots ?? 1))),
    };
  }

  async function slot(backend: string, lane: Lane, claim: () => Promise<ClaimAnswer>): Promise<void> {
    // A success claims the slot's next task with its completion (the store makes that as few round
    // trips as it can, bench/engine.bench.ts); the lane's claimer serves the slot otherwise. None once stopping.
    const claimNext = () => (stopped ? undefined : claimRequest(backend));
    let claimed: Claimed | undefined;
    let claimedAt = 0;
    while (!stopped) {
      if (claimed) {
        deps.metrics.claimed(backend, Math.max(0, deps.clock() - claimed.task.createdAt));
        claimed = await attempt(claimed, lane, claimNext, claimedAt);
        // Claimed with the completion just made.
        claimedAt = deps.clock();
        continue;
      }
      const answer = await claim();
      claimed = answer.claimed;
      claimedAt = answer.askedAt;
      // A task queued while the claim ran (its wake-up came meanwhile) is looked for at once, not
      // at the next poll: the wake-up is not lost for arriving before this slot went idle.
      if (!claimed && !stopped) await idle(answer.since);
    }
    // Claimed while the worker was being stopped: given back unstarted, so another worker starts it at once.
    if (claimed) await handBackUnstarted(claimed.lease);
  }

  async function handBackUnstarted(lease: Lease): Promise<void> {
    try {
      await deps.tasks.release(lease, deps.clock());
      await deps.tasks.endAttempt(lease, 'released', null, deps.clock());
    } catch (err) {
      // Its lease runs out and the reaper returns it to the queue.
      deps.logger.warn({ err, taskId: lease.id }, 'task claimed at shutdown not handed back');
    }
  }

  async function attempt(
    claimed: Claimed,
    lane: Lane,
    claimNext: () => ClaimRequest | undefined,
    claimedAt: number,
  ): Promise<Claimed | undefined> {
    const { task, lease } = claimed;
    const controller = new AbortController();
    const stop = (reason: StopReason) => controller.signal.aborted || controller.abort(reason);
    running.set(task.id, controller);
    const heartbeat = setInterval(async () => {
      let renewed: Lease | undefined;
      try {
        renewed = await deps.tasks.renew(lease, deps.leaseMs, deps.clock());
      } catch {
        // The store could not be asked (connection lost): the lease holds until it expires, so keep working till then.
        if (deps.clock() < lease.expiresAt) return;
      }
      if (renewed) lease.expiresAt = renewed.expiresAt;
      else stop(await leaseLostReason(deps.tasks, task.id));
    }, deps.heartbeatMs);
    const deadline = setTimeout(() => stop('deadline'), lane.deadlineMs);
    try {
      const tracing = deps.tracing ?? noTracing;
      if (!tracing.enabled) return await runTask(deps, task, lease, controller, claimNext);
      // The claim continues the trace the task was submitted in, whichever process enqueued it
      // (docs/observability.md); the attempt is the claim's child.
      const attributes = { ...taskAttributes(task), 'vidgen.task.attempt': task.attempts, 'vidgen.worker': deps.owner };
      const claim = tracing.startSpan('task.claim', {
        kind: 'consumer',
        parent: parseTraceContext(claimed.traceContext),
        startTime: claimedAt,
        attributes: { ...attributes, 'vidgen.queue_wait_ms': Math.max(0, claimedAt - task.createdAt) },
      });
      claim.end();
      return await tracing.withSpan('task.attempt', { parent: claim, attributes }, (span) =>
        runTask(deps, task, lease, controller, claimNext, span),
      );
    } catch (err) {
      deps.logger.error({ err, taskId: task.id }, 'task attempt crashed');
      return undefined;
    } finally {
      clearInterval(heartbeat);
      clearTimeout(deadline);
      running.delete(task.id);
    }
  }

  async function reap(): Promise<void> {
    const touched = await deps.tasks.reclaimExpired(deps.clock(), deps.maxAttempts).catch((err) => {
      deps.logger[isStorageFault(err) ? 'warn' : 'error']({ err }, 'lease reclaim failed');
      return 0;
    });
    if (touched > 0) {
      deps.metrics.reclaimed(touched);
      deps.logger.warn({ tasks: touched }, 'reclaimed tasks whose lease had expired');
      wakeAll();
    }
  }

  return {
    start() {
      announceWorker({ event: 'started', kind: 'task worker', owner: deps.owner });
      unsubscribe.push(deps.events.onQueued(wakeAll));
      unsubscribe.push(deps.events.onCanceled((taskId) => running.get(taskId)?.abort('canceled' satisfies StopReason)));
      reaper = setInterval(reap, Math.max(250, Math.floor(deps.leaseMs / 2)));
      void reap();
      for (const [backend, lane] of Object.entries(deps.lanes)) {
        const claim = laneClaimer(backend);
        for (let i = 0; i < lane.slots; i++) {
          const loop = slot(backend, lane, claim);
          loops.add(loop);
          void loop.finally(() => loops.delete(loop));
        }
      }
    },
    async stop(graceMs = 0) {
      stopped = true;
      clearInterval(reaper);
      for (const off of unsubscribe.splice(0)) off();
      wakeAll();
      await stopLeaseHolder({
        kind: 'task worker',
        owner: deps.owner,
        graceMs,
        finished: Promise.all([...loops]),
        abortRunning: () => {
          for (const controller of running.values()) controller.abort('shutdown' satisfies StopReason);
        },
        leasedBy: (owner) => deps.tasks.leasedBy(owner),
        warnHeld: (tasks) =>
          deps.logger.warn({ tasks }, 'stopped while still holding leases; they will expire and be reclaimed'),
      });
    },
  };
}
