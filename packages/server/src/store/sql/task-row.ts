import type { Selectable } from 'kysely';
import type { Task } from '../../domain/task.ts';
import type { TasksTable } from './schema.ts';

/**
 * Every column of the tasks table, for statements prepared once (reusable-query.ts): a named
 * list, unlike `*`, keeps their result the same when a later migration adds a column, which
 * PostgreSQL refuses for a prepared statement ("cached plan must not change result type").
 */
export const TASK_COLUMNS = [
  'id',
  'account_id',
  'family',
  'kind',
  'model',
  'backend',
  'status',
  'progress',
  'params',
  'error_code',
  'error_message',
  'result_key',
  'result_bytes',
  'result_etag',
  'result_duration_ms',
  'result_delivery',
  'attempts',
  'lease_owner',
  'lease_token',
  'lease_expires_at',
  'available_at',
  'created_at',
  'started_at',
  'finished_at',
  'expires_at',
  'deleted_at',
  'idempotency_key',
  'backend_state',
  'cost_usd_ticks',
  'upstream_cost_usd_ticks',
  'api_key_id',
  'revision',
  'service_tier',
  'claim_rank',
  'batch_id',
] as const satisfies ReadonlyArray<keyof TasksTable>;
// Fails to compile when a column is added to TasksTable and not here. The trace context is not a
// part of the task: only the claim reads it (fair-claim.ts), so a poll never pays for it.
({}) as Exclude<keyof TasksTable, (typeof TASK_COLUMNS)[number] | 'trace_context'> satisfies never;

/** The columns of a task as TASK_COLUMNS reads them. */
export type TaskRow = Omit<Selectable<TasksTable>, 'trace_context'>;

/** A tasks row as the engine's Task. */
export function toTask(row: TaskRow): Task {
  return {
    id: row.id,
    accountId: row.account_id,
    family: row.family as Task['family'],
    kind: row.kind as Task['kind'],
    model: row.model,
    backend: row.backend,
    status: row.status as Task['status'],
    progress: row.progress,
    params: JSON.parse(row.params),
    error: row.error_code ? { code: row.error_code, message: row.error_message ?? '' } : null,
    result: row.result_key
      ? {
          blobKey: row.result_key,
          bytes: row.result_bytes ?? 0,
          etag: row.result_etag ?? '',
          ...(row.result_duration_ms !== null ? { durationSeconds: Number(row.result_duration_ms) / 1000 } : {}),
          ...(row.result_delivery !== null ? { delivery: JSON.parse(row.result_delivery) } : {}),
        }
      : null,
    attempts: row.attempts,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    expiresAt: row.expires_at,
    deletedAt: row.deleted_at === null ? null : Number(row.deleted_at),
    idempotencyKey: row.idempotency_key,
    revision: Number(row.revision),
    serviceTier: row.service_tier as Task['serviceTier'],
    batchId: row.batch_id,
    usage:
      row.cost_usd_ticks === null
        ? null
        : {
            costUsdTicks: Number(row.cost_usd_ticks),
            ...(row.upstream_cost_usd_ticks !== null
              ? { upstreamCostUsdTicks: Number(row.upstream_cost_usd_ticks) }
              : {}),
          },
  };
}
