import type { BatchObject } from '@vidgen/protocol';
import type { Batch } from '../../domain/batch.ts';

const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));

/** A batch as OpenAI's `Batch` object (what `GET /v1/batches/{id}` answers and `batch.*` events carry). */
export function toBatchObject(batch: Batch): BatchObject {
  return {
    id: batch.id,
    object: 'batch',
    endpoint: batch.endpoint,
    input_file_id: batch.inputFileId,
    completion_window: batch.completionWindow,
    status: batch.status,
    errors: batch.errors === null ? null : { object: 'list', data: batch.errors },
    request_counts: { total: batch.total, completed: batch.completed, failed: batch.failed },
    output_file_id: batch.outputFileId,
    error_file_id: batch.errorFileId,
    metadata: batch.metadata,
    created_at: Math.floor(batch.createdAt / 1000),
    in_progress_at: seconds(batch.inProgressAt),
    finalizing_at: seconds(batch.finalizingAt),
    completed_at: seconds(batch.completedAt),
    failed_at: seconds(batch.failedAt),
    expired_at: seconds(batch.expiredAt),
    expires_at: Math.floor(batch.expiresAt / 1000),
    cancelling_at: seconds(batch.cancellingAt),
    cancelled_at: seconds(batch.cancelledAt),
    cost_in_usd_ticks: batch.costUsdTicks,
  };
}
