/**
 * Checked by the compiler, never run: `npm run check` type-checks this file with the rest (tsconfig.json
 * includes packages/<name>/test), and each `@ts-expect-error` line fails that check the day its line compiles. So if
 * a task's `video` or `result_url` became optional again after the status check, or reachable without one,
 * the check fails. test/e2e/packed-sdk.test.ts checks the same against the packed declarations.
 */
import type { FamilyATask, FamilyBTask, FamilyBTaskObject, TaskObject } from '../src/index.ts';

export function familyA(task: FamilyATask): string {
  // @ts-expect-error: before the status says done, the video may not be there
  const early: string = task.video.url;
  if (task.status === 'done') {
    const url: string = task.video.url;
    const seconds: number = task.video.duration;
    return `${early}${url}${seconds}`;
  }
  // @ts-expect-error: a task that is not done has no video at all
  const none: string = task.video.url;
  const notDone: 'pending' | 'failed' | 'expired' = task.status;
  return `${none}${notDone}`;
}

export function familyB(task: FamilyBTask): string {
  if (task.status === 'SUCCESS') {
    // @ts-expect-error: a success may have expired, and then its video is gone
    const maybeGone: string = task.result_url;
    if (!task.expired) {
      const url: string = task.result_url;
      return `${maybeGone}${url}`;
    }
    const gone: undefined = task.result_url;
    return `${gone}`;
  }
  // @ts-expect-error: only a success has a result
  const none: string = task.result_url;
  return none;
}

export function generic(task: TaskObject<'A'>, old: FamilyBTaskObject): string {
  const a: FamilyATask = task;
  // @ts-expect-error: a task object says which status it is in; no status, no task
  const made: FamilyATask = { request_id: 'r', model: 'm', progress: 0 };
  // @ts-expect-error: a done task comes with its video
  const done: FamilyATask = { request_id: 'r', status: 'done', model: 'm', progress: 100 };
  return `${a.status}${old.status}${made}${done}`;
}
