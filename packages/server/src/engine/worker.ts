import type { Logger } from 'pino';
import type { TaskStore } from '../store/task-store.ts';
import type { Lease, Task } from './task.ts';
import { runTask, type TaskRunnerDeps } from './task-runner.ts';

export interface WorkerDeps extends TaskRunnerDeps {
  tasks: TaskStore;
  /** Unique per process: lease owner and log field. */
  owner: string;
  /** Slots per backend lane (a GPU host with N slots runs N tasks at once). */
  lanes: Record<string, number>;
  leaseMs: number;
  heartbeatMs: number;
  /** How often an idle slot looks for work when no wake-up hint arrives. */
  pollMs: number;
  logger: Logger;
}

export interface Worker {
  start(): void;
  /** Stops claiming; running attempts are stopped and their tasks handed back to the queue. */
  stop(): Promise<void>;
}

export function createWorker(deps: WorkerDeps): Worker {
  const running = new Set<Promise<void>>();
  const controllers = new Set<AbortController>();
  const wakers = new Set<() => void>();
  let stopped = false;
  let reaper: NodeJS.Timeout | undefined;
  let unsubscribe: (() => void) | undefined;

  const idle = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, deps.pollMs);
      function done() {
        clearTimeout(timer);
        wakers.delete(done);
        resolve();
      }
      wakers.add(done);
    });

  async function slot(backend: string): Promise<void> {
    while (!stopped) {
      let claimed: { task: Task; lease: Lease } | undefined;
      try {
        claimed = await deps.tasks.claim({ owner: deps.owner, backends: [backend], leaseMs: deps.leaseMs, now: deps.clock() });
      } catch (err) {
        deps.logger.error({ err }, 'claim failed');
      }
      if (!claimed) {
        await idle();
        continue;
      }
      await runWithHeartbeat(claimed.task, claimed.lease);
    }
  }

  async function runWithHeartbeat(task: Task, lease: Lease): Promise<void> {
    const controller = new AbortController();
    controllers.add(controller);
    const heartbeat = setInterval(async () => {
      const renewed = await deps.tasks.renew(lease, deps.leaseMs, deps.clock()).catch(() => undefined);
      if (renewed) lease.expiresAt = renewed.expiresAt;
      else if (!controller.signal.aborted) controller.abort('lease_lost');
    }, deps.heartbeatMs);
    try {
      await runTask(deps, task, lease, controller.signal);
    } catch (err) {
      deps.logger.error({ err, taskId: task.id }, 'task attempt crashed');
    } finally {
      clearInterval(heartbeat);
      controllers.delete(controller);
    }
  }

  async function reap(): Promise<void> {
    const touched = await deps.tasks.reclaimExpired(deps.clock(), deps.maxAttempts).catch((err) => {
      deps.logger.error({ err }, 'lease reclaim failed');
      return 0;
    });
    if (touched > 0) {
      deps.logger.warn({ tasks: touched }, 'reclaimed tasks whose lease had expired');
      for (const wake of [...wakers]) wake();
    }
  }

  return {
    start() {
      unsubscribe = deps.events.onQueued(() => {
        for (const wake of [...wakers]) wake();
      });
      reaper = setInterval(reap, Math.max(250, Math.floor(deps.leaseMs / 2)));
      void reap();
      for (const [backend, slots] of Object.entries(deps.lanes)) {
        for (let i = 0; i < slots; i++) {
          const loop = slot(backend);
          running.add(loop);
          void loop.finally(() => running.delete(loop));
        }
      }
    },
    async stop() {
      stopped = true;
      clearInterval(reaper);
      unsubscribe?.();
      for (const controller of controllers) controller.abort('shutdown');
      for (const wake of [...wakers]) wake();
      await Promise.all([...running]);
    },
  };
}
