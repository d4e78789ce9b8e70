import type { FamilyAStatus, FamilyATask } from '@vidgen/protocol';
import { outputSeconds, type Task, type TaskStatus } from '../../engine/task.ts';
import { publicModelName } from '../../catalog/model-catalog.ts';

const STATUS: Record<TaskStatus, FamilyAStatus> = {
  queued: 'pending',
  running: 'pending',
  succeeded: 'done',
  failed: 'failed',
  canceled: 'failed',
  expired: 'expired',
};

/** `?status=` of the listing, in family A's words. */
export const FAMILY_A_LIST_STATUSES: Record<FamilyAStatus, TaskStatus[]> = {
  pending: ['queued', 'running'],
  done: ['succeeded'],
  failed: ['failed', 'canceled'],
  expired: ['expired'],
};

export function familyAStatus(task: Task): FamilyAStatus {
  return STATUS[task.status];
}

/** Family A task body; `videoUrl` is the signed link, given only for a done task. */
export function toFamilyATask(task: Task, videoUrl?: string, queuePosition?: number): FamilyATask {
  const body: FamilyATask = {
    request_id: task.id,
    status: STATUS[task.status],
    model: publicModelName(task.model),
    progress: task.status === 'succeeded' ? 100 : task.progress,
  };
  if (queuePosition !== undefined) body.queue_position = queuePosition;
  // Whole seconds, as the spec's integer: an edit keeps its input's length, which may be fractional.
  if (task.status === 'succeeded' && videoUrl) body.video = { url: videoUrl, duration: Math.round(outputSeconds(task)) };
  if (task.error && (task.status === 'failed' || task.status === 'canceled')) body.error = { ...task.error };
  return body;
}
