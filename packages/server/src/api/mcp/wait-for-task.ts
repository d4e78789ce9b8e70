import { FINISHED_STATUSES, type Task } from '../../domain/task.ts';
import type { TaskWatch } from '../../engine/task-watch.ts';

/**
 * The task once it has ended, or as it stands when `ms` pass or the signal fires; `changed` is
 * told of each change meanwhile. The wait rides on the process's task watchers (engine/task-watch.ts):
 * the wake-ups every task stream shares, no read on a timer of its own.
 */
export function waitForTask(
  watch: TaskWatch,
  task: Task,
  ms: number,
  signal: AbortSignal,
  changed: (task: Task) => void,
): Promise<Task> {
  if (FINISHED_STATUSES.includes(task.status) || signal.aborted) return Promise.resolve(task);
  return new Promise((resolve) => {
    let latest = task;
    const finish = () => {
      clearTimeout(timer);
      unwatch();
      signal.removeEventListener('abort', finish);
      resolve(latest);
    };
    const timer = Number.isFinite(ms) ? setTimeout(finish, ms) : undefined;
    const unwatch = watch.watch(task.id, task.revision, (next) => {
      latest = next;
      changed(next);
      if (FINISHED_STATUSES.includes(next.status)) finish();
    });
    signal.addEventListener('abort', finish, { once: true });
  });
}
