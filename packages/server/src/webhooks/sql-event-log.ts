import type { Kysely, Selectable } from 'kysely';
import { uuidv7Floor } from '../domain/ids.ts';
import type { Database, EventsTable } from '../store/sql/schema.ts';
import type { EventLog, EventQuery, Recovery, StoredEvent } from './event-log.ts';
import { deliveryId } from './webhook-ids.ts';

/** Recovery reads and queues events in batches of this many: one statement of each kind per batch. */
const RECOVER_BATCH = 500;

/** The smallest event id made at `ms` or later: ids are time-ordered (webhook-ids.ts). */
export const eventIdFloor = (ms: number) => `evt_${uuidv7Floor(ms).replaceAll('-', '')}`;

export class SqlEventLog implements EventLog {
  constructor(private readonly db: Kysely<Database>) {}

  append(event: StoredEvent): Promise<void> {
    return insertEvent(this.db, event);
  }

  async list(accountId: string, { limit, after, type, since }: EventQuery): Promise<StoredEvent[]> {
    // Bounds on the id alone (time-ordered), so each filter is a range of one index: the cost of a
    // page does not grow with the account's history (bench/events.bench.ts).
    let query = this.db
      .selectFrom('events')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('id', 'desc')
      .limit(limit);
    if (type !== undefined) query = query.where('type', '=', type);
    if (after !== undefined) query = query.where('id', '<', after);
    if (since !== undefined) query = query.where('id', '>=', eventIdFloor(since));
    return (await query.execute()).map(toEvent);
  }

  async body(eventId: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('events').select('body').where('id', '=', eventId).executeTakeFirst();
    return row?.body;
  }

  async traceContext(eventId: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('events').select('trace_context').where('id', '=', eventId).executeTakeFirst();
    return row?.trace_context ?? undefined;
  }

  async recover(r: Recovery): Promise<number> {
    if (r.types.length === 0) return 0;
    let queued = 0;
    let after: string | undefined;
    for (;;) {
      let page = this.db
        .selectFrom('events')
        .select(['id', 'type', 'task_id', 'created_at'])
        .where('account_id', '=', r.accountId)
        .where('type', 'in', r.types)
        .where('id', '>=', eventIdFloor(r.since))
        .orderBy('id')
        .limit(RECOVER_BATCH);
      if (r.until !== undefined) page = page.where('id', '<', eventIdFloor(r.until));
      if (after !== undefined) page = page.where('id', '>', after);
      const events = await page.execute();
      if (events.length === 0) return queued;
      queued += await this.queueBatch(r, events);
      if (events.length < RECOVER_BATCH) return queued;
      after = events.at(-1)!.id;
    }
  }

  async sweep(before: number, limit: number): Promise<number> {
    const old = this.db.selectFrom('events').select('id').where('created_at', '<', before).limit(limit);
    const result = await this.db.deleteFrom('events').where('id', 'in', old).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** One batch: new deliveries for events never queued, and failed or canceled ones pending again. */
  private async queueBatch(r: Recovery, events: Array<Pick<EventsTable, 'id' | 'type' | 'task_id' | 'created_at'>>) {
    const ids = events.map((e) => e.id);
    const existing = await this.db
      .selectFrom('webhook_deliveries')
      .select(['event_id', 'status'])
      .where('endpoint_id', '=', r.endpointId)
      .where('event_id', 'in', ids)
      .execute();
    const known = new Set(existing.map((d) => d.event_id));
    const fresh = events.filter((e) => !known.has(e.id));
    let queued = 0;
    if (fresh.length > 0) {
      // The unique (endpoint_id, event_id) index makes a concurrent recovery's insert a no-op.
      const inserted = await this.db
        .insertInto('webhook_deliveries')
        .values(
          fresh.map((e) => ({
            id: deliveryId(r.now),
            event_id: e.id,
            endpoint_id: r.endpointId,
            account_id: r.accountId,
            event_type: e.type,
            task_id: e.task_id,
            created_at: Number(e.created_at),
            status: 'pending',
            attempts: 0,
            max_attempts: r.maxAttempts,
            next_attempt_at: r.now,
            lease_owner: null,
            lease_token: 0,
            last_status_code: null,
            last_error: null,
            delivered_at: null,
          })),
        )
        .onConflict((oc) => oc.columns(['endpoint_id', 'event_id']).doNothing())
        .returning('id')
        .execute();
      queued += inserted.length;
    }
    const ended = existing.filter((d) => d.status === 'failed' || d.status === 'canceled').map((d) => d.event_id);
    if (ended.length > 0) {
      // A fresh schedule, and a new lease token: no dispatcher still holding an old claim can end it.
      const result = await this.db
        .updateTable('webhook_deliveries')
        .set((eb) => ({
          status: 'pending',
          next_attempt_at: r.now,
          lease_owner: null,
          lease_token: eb('lease_token', '+', 1),
          max_attempts: eb('attempts', '+', r.maxAttempts),
        }))
        .where('endpoint_id', '=', r.endpointId)
        .where('event_id', 'in', ended)
        .where('status', 'in', ['failed', 'canceled'])
        .executeTakeFirst();
      queued += Number(result.numUpdatedRows);
    }
    return queued;
  }
}

/** Writes an event inside the transaction of the change it reports (webhook-outbox.ts). */
export async function insertEvent(db: Kysely<Database>, event: StoredEvent): Promise<void> {
  await db
    .insertInto('events')
    .values({
      id: event.id,
      account_id: event.accountId,
      type: event.type,
      task_id: event.taskId,
      created_at: event.createdAt,
      body: event.body,
      trace_context: event.traceContext ?? null,
    })
    .execute();
}

function toEvent(row: Selectable<EventsTable>): StoredEvent {
  return {
    id: row.id,
    accountId: row.account_id,
    type: row.type,
    taskId: row.task_id,
    createdAt: Number(row.created_at),
    body: row.body,
  };
}
