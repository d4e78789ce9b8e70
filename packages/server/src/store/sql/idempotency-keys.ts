import type { Kysely } from 'kysely';
import type { IdempotencyClaim, Reservation } from '../task-store.ts';
import type { Database } from './schema.ts';

/** Idempotency-Key reservations (invariant 2, docs/architecture.md); the task insert binds a key to its task. */
export class IdempotencyKeys {
  constructor(private readonly db: Kysely<Database>) {}

  async reserve(claim: IdempotencyClaim, now: number, staleBefore: number): Promise<Reservation> {
    const inserted = await this.db
      .insertInto('idempotency_keys')
      .values({
        account_id: claim.accountId,
        key: claim.key,
        request_hash: claim.requestHash,
        task_id: null,
        created_at: now,
      })
      .onConflict((oc) => oc.columns(['account_id', 'key']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return { kind: 'reserved' };
    const row = await this.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('account_id', '=', claim.accountId)
      .where('key', '=', claim.key)
      .executeTakeFirst();
    if (!row) return this.reserve(claim, now, staleBefore);
    if (row.task_id) return { kind: 'existing', taskId: row.task_id, requestHash: row.request_hash };
    if (row.created_at >= staleBefore) return { kind: 'in_flight', requestHash: row.request_hash };
    // The first request died mid-way (its process crashed): whoever updates the stale row first takes it over.
    const takeover = await this.db
      .updateTable('idempotency_keys')
      .set({ request_hash: claim.requestHash, created_at: now })
      .where('account_id', '=', claim.accountId)
      .where('key', '=', claim.key)
      .where('task_id', 'is', null)
      .where('created_at', '=', row.created_at)
      .executeTakeFirst();
    return Number(takeover.numUpdatedRows) === 1
      ? { kind: 'reserved' }
      : { kind: 'in_flight', requestHash: row.request_hash };
  }

  async renew(claim: IdempotencyClaim, now: number): Promise<void> {
    await this.db
      .updateTable('idempotency_keys')
      .set({ created_at: now })
      .where('account_id', '=', claim.accountId)
      .where('key', '=', claim.key)
      .where('request_hash', '=', claim.requestHash)
      .where('task_id', 'is', null)
      .execute();
  }

  async release(claim: IdempotencyClaim): Promise<void> {
    await this.db
      .deleteFrom('idempotency_keys')
      .where('account_id', '=', claim.accountId)
      .where('key', '=', claim.key)
      .where('request_hash', '=', claim.requestHash)
      .where('task_id', 'is', null)
      .execute();
  }
}
