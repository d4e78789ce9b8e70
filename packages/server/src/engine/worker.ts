import type { Logger } from 'pino';
import type { Claimed, ClaimRequest, TaskStore } from '../store/task-store.ts';
import type { Lease } from '../domain/lease.ts';
import {
  hasInputs,
  leaseLostReason,
  runTask,
  type StopReason,
  type TaskRunnerDeps,
  type UntilSlot,
} from './task-runner.ts';
import { FetchStage } from './fetch-stage.ts';
import { laneClaimer, type ClaimAnswer } from './lane-claimer.ts';
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
  /** Tasks of one lane that may fetch their inputs at once, outside its render slots (fetch-stage.ts); 4 by default. */
  fetchSlots?: number;
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

/**
 * How long a task with inputs waits in the queue when its lane's fetch stage is full, before it is
 * claimed again: a slot never fetches, and never spins claiming and handing back the same task.
 */
const FETCH_DEFER_MS = 1000;

export function createWorker(deps: WorkerDeps): Worker {
  const loops = new Set<Promise<void>>();
  const running = new Map<string, AbortController>();
  /** Attempts in a fetch stage, not yet rendering: handed back at once when the worker stops. */
  const staged = new Set<AbortController>();
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

  async function slot(
    backend: string,
    lane: Lane,
    claim: () => Promise<ClaimAnswer>,
    stage: FetchStage<Claimed | undefined>,
  ): Promise<void> {
    // A success claims the slot's next task with its completion (the store makes that as few round
    // trips as it can, bench/engine.bench.ts); the lane's claimer serves the slot otherwise. None once
    // stopping, or while a fetched task waits for a slot: it goes first.
    const claimNext = () => (stopped || stage.hasWaiting() ? undefined : claimRequest(backend));
    let claimed: Claimed | undefined;
    let claimedAt = 0;
    while (!stopped) {
      if (claimed && hasInputs(claimed.task)) {
        // Its inputs are fetched outside this slot, which looks for other work meanwhile. With the
        // fetch stage full it goes back to the queue for a moment: a slot never waits on a fetch.
        const [task, at] = [claimed, claimedAt];
        claimed = undefined;
        if (!stage.hasRoom()) await handBackUnstarted(task.lease, deps.clock() + FETCH_DEFER_MS);
        else {
          deps.metrics.claimed(backend, Math.max(0, deps.clock() - task.task.createdAt));
          track(stage.run((untilSlot) => attempt(task, lane, claimNext, at, untilSlot)));
        }
        continue;
      }
      if (claimed) {
        deps.metrics.claimed(backend, Math.max(0, deps.clock() - claimed.task.createdAt));
        claimed = await attempt(claimed, lane, claimNext, claimedAt);
        // Claimed with the completion just made.
        claimedAt = deps.clock();
        continue;
      }
      // A task of the fetch stage whose inputs are in: this slot renders it, and takes what it claimed next.
      const taken = stage.take();
      if (taken) {
        claimed = await taken;
        claimedAt = deps.clock();
        continue;
      }
      const answer = await claim();
      claimed = answer.claimed;
      claimedAt = answer.askedAt;
      // A task queued while the claim ran (its wake-up came meanwhile) is looked for at once, not
      // at the next poll: the wake-up is not lost for arriving before this slot went idle.
      if (!claimed && !stopped && !stage.hasWaiting()) await idle(answer.since);
    }
    // Claimed while the worker was being stopped: given back unstarted, so another worker starts it at once.
    if (claimed) await handBackUnstarted(claimed.lease);
  }

  /** An attempt running outside the slots (in a fetch stage): stopping the worker waits for it too. */
  function track(run: Promise<unknown>): void {
    loops.add(run as Promise<void>);
    void run.finally(() => loops.delete(run as Promise<void>));
  }

  async function handBackUnstarted(lease: Lease, availableAt = deps.clock()): Promise<void> {
    try {
      await deps.tasks.release(lease, availableAt);
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
    untilSlot?: UntilSlot,
  ): Promise<Claimed | undefined> {
    const { task, lease } = claimed;
    const controller = new AbortController();
    const stop = (reason: StopReason) => controller.signal.aborted || controller.abort(reason);
    running.set(task.id, controller);
    if (untilSlot) staged.add(controller);
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
    let deadline = setTimeout(() => stop('deadline'), lane.deadlineMs);
    // Through the fetch stage: the render slot is waited for; once it is taken the attempt renders,
    // with the whole deadline for it (the fetch had its own timeouts). A stopping worker hands it back.
    const slotTaken =
      untilSlot &&
      (async (signal: AbortSignal) => {
        if (stopped) stop('shutdown');
        await untilSlot(signal);
        staged.delete(controller);
        clearTimeout(deadline);
        deadline = setTimeout(() => stop('deadline'), lane.deadlineMs);
      });
    try {
      const tracing = deps.tracing ?? noTracing;
      if (!tracing.enabled) return await runTask(deps, task, lease, controller, claimNext, undefined, slotTaken);
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
        runTask(deps, task, lease, controller, claimNext, span, slotTaken),
      );
    } catch (err) {
      deps.logger.error({ err, taskId: task.id }, 'task attempt crashed');
      return undefined;
    } finally {
      clearInterval(heartbeat);
      clearTimeout(deadline);
      running.delete(task.id);
      staged.delete(controller);
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
        const claim = laneClaimer(backend, { ...deps, claimRequest, wakes: () => wakes });
        const stage = new FetchStage<Claimed | undefined>(deps.fetchSlots ?? 4, wakeAll);
        for (let i = 0; i < lane.slots; i++) {
          const loop = slot(backend, lane, claim, stage);
          loops.add(loop);
          void loop.finally(() => loops.delete(loop));
        }
      }
    },
    async stop(graceMs = 0) {
      stopped = true;
      clearInterval(reaper);
      for (const off of unsubscribe.splice(0)) off();
      // Not rendering yet: handed back at once, so another worker starts them.
      for (const controller of staged) controller.abort('shutdown' satisfies StopReason);
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
