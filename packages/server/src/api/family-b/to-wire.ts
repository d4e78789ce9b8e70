import type { FamilyBStatus, FamilyBTask } from '@vidgen/protocol';
import type { Task, TaskStatus } from '../../engine/task.ts';
import { contentPath } from '../links.ts';

/** Family B has no word for an expired result: the task stays SUCCESS, and its content answers 410. */
const STATUS: Record<TaskStatus, FamilyBStatus> = {
  queued: 'queued',
  running: 'IN_PROGRESS',
  succeeded: 'SUCCESS',
  failed: 'FAILURE',
  canceled: 'FAILURE',
  expired: 'SUCCESS',
};

/** `?status=` of the listing, in family B's words. */
export const FAMILY_B_LIST_STATUSES: Record<FamilyBStatus, TaskStatus[]> = {
  queued: ['queued'],
  IN_PROGRESS: ['running'],
  SUCCESS: ['succeeded', 'expired'],
  FAILURE: ['failed', 'canceled'],
};

export function toFamilyBTask(task: Task, queuePosition?: number): FamilyBTask & { expired?: true } {
  const body: FamilyBTask & { expired?: true } = {
    task_id: task.id,
    status: STATUS[task.status],
    progress: task.status === 'succeeded' || task.status === 'expired' ? 100 : task.progress,
    seconds: String(task.params.duration),
    model: task.model,
  };
  if (queuePosition !== undefined) body.queue_position = queuePosition;
  if (task.status === 'succeeded') body.result_url = contentPath(task.id);
  if (task.status === 'expired') body.expired = true;
  if (task.error && (task.status === 'failed' || task.status === 'canceled')) body.error = { ...task.error };
  return body;
}
