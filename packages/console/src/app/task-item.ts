import {
  formatUsdTicks,
  viewOf,
  type Family,
  type FamilyATask,
  type FamilyBTaskObject,
  type TaskPhase,
} from '@vidgen/client';

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
  /**
   * Unix milliseconds, from the server's listing only: polls carry no times, and a time this tab measured itself
   * would disagree with what the same task shows after a reload.
   */
  startedAt: number | undefined;
  finishedAt: number | undefined;
  /** The key the task was created with: finds its listing entry (and so its times) once it ends here. */
  idempotencyKey: string | undefined;
  /** Seconds of the finished video. */
  seconds: number | undefined;
  /** From a listing (the server keeps it), else what this tab remembered at submit. */
  prompt: string | undefined;
  error: { code: string; message: string } | undefined;
  /** What the task cost once settled (`usage.cost_in_usd_ticks`, USD ticks; 0 for a task without a result). */
  costUsdTicks: number | undefined;
}

/** What a listing adds to a poll object (see the protocol's ListedFields). */
interface ListedExtras {
  created_at?: number;
  started_at?: number | null;
  finished_at?: number | null;
  prompt?: string;
  requested_model?: string;
  idempotency_key?: string | null;
}

export type WireTask = FamilyATask | FamilyBTaskObject;

/**
 * Reads a poll or list answer. Polls carry no creation time, so the earlier item's is kept;
 * a task first seen from its create answer starts the clock now.
 */
export function toTaskItem(family: Family, task: WireTask & ListedExtras, previous?: TaskItem): TaskItem {
  const view = viewOf(family, task);
  const ms = (s: number | null | undefined) => (typeof s === 'number' ? s * 1000 : undefined);
  const seconds =
    family === 'A' ? (task as FamilyATask).video?.duration : Number((task as FamilyBTaskObject).seconds) || undefined;
  return {
    id: view.id,
    family,
    model: task.requested_model ?? task.model ?? previous?.model ?? '',
    startedAt: ms(task.started_at) ?? previous?.startedAt,
    finishedAt: ms(task.finished_at) ?? previous?.finishedAt,
    idempotencyKey: task.idempotency_key ?? previous?.idempotencyKey,
    seconds: seconds ?? previous?.seconds,
    prompt: task.prompt ?? previous?.prompt,
    status: view.status,
    phase: view.phase,
    progress: view.progress,
    queuePosition: typeof task.queue_position === 'number' ? task.queue_position : undefined,
    createdAt: typeof task.created_at === 'number' ? task.created_at * 1000 : (previous?.createdAt ?? Date.now()),
    error: view.error,
    costUsdTicks: task.usage?.cost_in_usd_ticks ?? previous?.costUsdTicks,
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

/**
 * "5 s video · waited 0:01 · rendered 0:04 · cost $0.25": what a finished task took and cost, as far as it is known.
 * The times are the server's (created, started, finished), so a task reads the same whether this tab saw it end or
 * a reload listed it.
 */
export function timingText(item: TaskItem): string {
  const parts: string[] = [];
  if (item.seconds && item.phase === 'succeeded') parts.push(`${item.seconds} s video`);
  if (item.finishedAt !== undefined && item.phase !== 'pending') {
    if (item.startedAt !== undefined && item.startedAt >= item.createdAt) {
      parts.push(
        `waited ${formatElapsed(item.startedAt - item.createdAt)}`,
        `rendered ${formatElapsed(item.finishedAt - item.startedAt)}`,
      );
    } else {
      parts.push(`took ${formatElapsed(item.finishedAt - item.createdAt)}`);
    }
  }
  if (item.costUsdTicks !== undefined && item.phase !== 'pending')
    parts.push(`cost ${formatUsdTicks(item.costUsdTicks)}`);
  return parts.join(' · ');
}
