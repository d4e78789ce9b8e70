import type { Kysely } from 'kysely';
import type { Database } from '../store/sql/schema.ts';
import type { StoredEvent } from './event-log.ts';
import { insertEvent } from './sql-event-log.ts';
import { insertDeliveries } from './sql-webhook-store.ts';
import { deliveryId } from './webhook-ids.ts';

/**
 * The one write of every outbox (a task's transition, a balance alert): the event with its body
 * frozen, and one pending delivery of it per endpoint, in the transaction of what caused it.
 */
export async function recordEvent(
  trx: Kysely<Database>,
  event: StoredEvent,
  endpointIds: readonly string[],
  maxAttempts: number,
): Promise<void> {
  await insertEvent(trx, event);
  await insertDeliveries(
    trx,
    endpointIds.map((endpointId) => ({
      id: deliveryId(event.createdAt),
      eventId: event.id,
      endpointId,
      accountId: event.accountId,
      eventType: event.type,
      taskId: event.taskId,
      createdAt: event.createdAt,
      maxAttempts,
    })),
    event.createdAt,
  );
}
