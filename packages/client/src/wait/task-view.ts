import type { Family, FamilyATask, FamilyBTaskObject, TaskError } from '../types.ts';

/** Where a task stands, in one vocabulary for both families. */
export type TaskPhase = 'pending' | 'succeeded' | 'failed' | 'expired';

export interface TaskView {
  id: string;
  family: Family;
  /** The status in the family's own words. */
  status: string;
  phase: TaskPhase;
  progress: number | undefined;
  /** While queued: how many tasks the server will start before this one (an estimate). */
  queuePosition: number | undefined;
  error: TaskError | undefined;
}

export const FAMILY_PATHS = {
  A: { create: '/v1/videos/generations', poll: '/v1/videos/', list: '/v1/videos' },
  B: { create: '/v1/video/generations', poll: '/v1/video/generations/', list: '/v1/video/generations' },
} as const;

export function taskPath(family: Family, id: string): string {
  return `${FAMILY_PATHS[family].poll}${encodeURIComponent(id)}`;
}

export function taskIdOf(family: Family, task: unknown): string | undefined {
  const t = task as { request_id?: unknown; task_id?: unknown } | undefined;
  const id = family === 'A' ? t?.request_id : t?.task_id;
  return typeof id === 'string' && id ? id : undefined;
}

/** Unknown states count as pending: a newer server may add some, and waiting is the safe reading. */
export function viewOf(family: Family, task: FamilyATask | FamilyBTaskObject): TaskView {
  const status = String(task.status);
  const common = {
    family,
    status,
    progress: typeof task.progress === 'number' ? task.progress : undefined,
    queuePosition: typeof task.queue_position === 'number' ? task.queue_position : undefined,
    error: task.error,
  };
  if (family === 'A') {
    const a = task as FamilyATask;
    const phase: TaskPhase =
      status === 'done' ? 'succeeded' : status === 'failed' ? 'failed' : status === 'expired' ? 'expired' : 'pending';
    return { id: a.request_id, phase, ...common };
  }
  const b = task as FamilyBTaskObject;
  const phase: TaskPhase =
    status === 'SUCCESS' ? (b.expired ? 'expired' : 'succeeded') : status === 'FAILURE' ? 'failed' : 'pending';
  return { id: b.task_id, phase, ...common };
}
