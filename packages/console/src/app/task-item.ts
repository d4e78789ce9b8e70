import { viewOf, type Family, type FamilyATask, type FamilyBTaskObject, type TaskPhase } from '@vidgen/client';

/** One task as the list shows it, whichever dialect it came from. */
export interface TaskItem {
  id: string;
  /** Which dialect created it: decides the poll and cancel endpoints. */
  family: Family;
  model: string;
  /** In the family's own words (`pending`… or `queued`…). */
  status: string;
  phase: TaskPhase;
  progress: number | undefined;
  queuePosition: number | undefined;
  /** Unix milliseconds. */
  createdAt: number;
  error: { code: string; message: string } | undefined;
}

export type WireTask = FamilyATask | FamilyBTaskObject;

/**
 * Reads a poll or list answer. Polls carry no creation time, so the earlier item's is kept;
 * a task first seen from its create answer starts the clock now.
 */
export function toTaskItem(family: Family, task: WireTask & { created_at?: number }, previous?: TaskItem): TaskItem {
  const view = viewOf(family, task);
  return {
    id: view.id,
    family,
    model: task.model ?? previous?.model ?? '',
    status: view.status,
    phase: view.phase,
    progress: view.progress,
    queuePosition: typeof task.queue_position === 'number' ? task.queue_position : undefined,
    createdAt: typeof task.created_at === 'number' ? task.created_at * 1000 : previous?.createdAt ?? Date.now(),
    error: view.error,
  };
}

export function isCanceled(item: TaskItem): boolean {
  return item.phase === 'failed' && item.error?.code === 'canceled';
}

/** A short, human status; the family's own word stays available in `item.status`. */
export function statusLabel(item: TaskItem): string {
  switch (item.phase) {
    case 'succeeded':
      return 'Done';
    case 'expired':
      return 'Expired';
    case 'failed':
      return isCanceled(item) ? 'Canceled' : 'Failed';
  }
  const running = item.status === 'IN_PROGRESS' || (item.progress ?? 0) > 0;
  if (running) return `Running · ${Math.round(item.progress ?? 0)}%`;
  return item.queuePosition ? `Queued · ${item.queuePosition} ahead` : 'Queued';
}

/** `0:07`, `3:12`, `1:02:09`. */
export function formatElapsed(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const [hours, minutes, seconds] = [Math.floor(total / 3600), Math.floor(total / 60) % 60, total % 60];
  const mmss = `${hours ? String(minutes).padStart(2, '0') : minutes}:${String(seconds).padStart(2, '0')}`;
  return hours ? `${hours}:${mmss}` : mmss;
}

export function formatCreated(ms: number, now = Date.now()): string {
  const date = new Date(ms);
  const sameDay = new Date(now).toDateString() === date.toDateString();
  const time = date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  return sameDay ? time : `${date.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })} ${time}`;
}
