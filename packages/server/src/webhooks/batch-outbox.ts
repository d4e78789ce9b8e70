import type { Batch } from '../domain/batch.ts';
import type { BatchEndEffect } from '../store/sql/sql-batch-store.ts';
import type { BATCH_EVENT_TYPES } from './webhook-events.ts';
import { enabledEndpoints } from './sql-webhook-store.ts';
import { recordEvent } from './record-event.ts';
import { eventId } from './webhook-ids.ts';

export interface BatchOutboxOptions {
  maxAttempts: number;
  clock: () => number;
  /** The batch as `GET /v1/batches/{id}` answers it (the API's Batch object), frozen into the body. */
  render(batch: Batch): Record<string, unknown>;
}

const BY_STATUS: Partial<Record<Batch['status'], (typeof BATCH_EVENT_TYPES)[number]>> = {
  completed: 'batch.completed',
  failed: 'batch.failed',
  expired: 'batch.expired',
  cancelled: 'batch.cancelled',
};

/**
 * The outbox of a batch's end (invariant 8, docs/architecture.md), written in the transaction of
 * its final change: the `batch.*` event with its body frozen (`data` is the Batch object then),
 * one delivery per enabled endpoint of the account subscribed to it. The dispatcher sends them as
 * it sends task events. Recorded whoever listens: a batch ends once, and `GET /v1/events` shows it.
 */
export function batchOutbox(options: BatchOutboxOptions): BatchEndEffect {
  return async (trx, batch) => {
    const type = BY_STATUS[batch.status];
    if (!type) return;
    const now = options.clock();
    const id = eventId(now);
    const body = JSON.stringify({ id, type, created_at: Math.floor(now / 1000), data: options.render(batch) });
    const endpoints = (await enabledEndpoints(trx, batch.accountId)).filter((e) => e.events.includes(type));
    const event = { id, accountId: batch.accountId, type, taskId: null, createdAt: now, body };
    await recordEvent(
      trx,
      event,
      endpoints.map((e) => e.id),
      options.maxAttempts,
    );
  };
}
