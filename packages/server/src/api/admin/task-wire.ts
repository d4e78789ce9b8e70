import type { AdminTaskDetail, AdminTaskObject } from '@vidgen/protocol';
import { taskInputs } from '../../domain/task.ts';
import type { Task } from '../../domain/task.ts';
import type { TaskAttemptRecord } from '../../store/operator-reads.ts';

const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));

/** Dialect names on the operator's wire ↔ the families tasks are stored with. */
export const DIALECT_FAMILIES: Record<string, string> = { A: 'A', B: 'B', openai: 'O' };
const FAMILY_DIALECTS = Object.fromEntries(Object.entries(DIALECT_FAMILIES).map(([d, f]) => [f, d]));

export function toAdminTask(task: Task, account: string): AdminTaskObject {
  return {
    id: task.id,
    object: 'admin_task',
    account,
    dialect: FAMILY_DIALECTS[task.family] ?? task.family,
    kind: task.kind,
    model: task.model,
    tier: task.serviceTier,
    batch: task.batchId,
    status: task.status,
    progress: task.progress,
    prompt: task.params.prompt,
    cost_usd_ticks: task.usage?.costUsdTicks ?? null,
    error: task.error && { code: task.error.code, message: task.error.message },
    attempts: task.attempts,
    created_at: Math.floor(task.createdAt / 1000),
    started_at: seconds(task.startedAt),
    finished_at: seconds(task.finishedAt),
  };
}

/** Submitted, each attempt's claim and end, finished: in the order they happened. */
export function timelineOf(task: Task, attempts: TaskAttemptRecord[]): AdminTaskDetail['timeline'] {
  const events: AdminTaskDetail['timeline'] = [
    { at: Math.floor(task.createdAt / 1000), event: 'submitted', attempt: null, worker: null, detail: null },
  ];
  for (const a of attempts) {
    events.push({
      at: Math.floor(a.startedAt / 1000),
      event: 'claimed',
      attempt: a.attempt,
      worker: a.worker,
      detail: null,
    });
    if (a.endedAt !== null)
      events.push({
        at: Math.floor(a.endedAt / 1000),
        event: 'attempt_ended',
        attempt: a.attempt,
        worker: a.worker,
        detail: [a.outcome, a.errorCode].filter(Boolean).join(': ') || null,
      });
  }
  if (task.finishedAt !== null)
    events.push({
      at: Math.floor(task.finishedAt / 1000),
      event: 'finished',
      attempt: null,
      worker: null,
      detail: task.status,
    });
  return events;
}

/**
 * The task's inputs by role: a URL as given, an upload as a signed link to it (`fileUrl`); an inline
 * image stored at submit has no route of its own (null).
 */
export function inputsOf(task: Task, fileUrl: (fileId: string) => string): AdminTaskDetail['inputs'] {
  return taskInputs(task.params).map((input) => ({
    role: input.role,
    source: input.ref.kind,
    url: input.ref.kind === 'url' ? input.ref.url : input.ref.kind === 'file' ? fileUrl(input.ref.fileId) : null,
  }));
}
