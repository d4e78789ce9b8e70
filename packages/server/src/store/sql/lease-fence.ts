import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Lease } from '../../domain/lease.ts';
import type { Database } from './schema.ts';

/** The tables whose rows are leased (domain/lease.ts): each has id, status, lease_owner and lease_token. */
export type LeasedTable = 'tasks' | 'webhook_deliveries';

/** The status a row has while it is leased: a running task, a delivery being sent. */
const LEASED_STATUS = { tasks: 'running', webhook_deliveries: 'pending' } as const;

/**
 * The one fence of every lease-guarded write (docs/architecture.md, invariant 1): the row is still
 * this lease's (same owner and token) and still in the status it was leased in (LEASED_STATUS). A write that matches no
 * row means the lease was no longer held.
 */
export const heldBy =
  <T extends LeasedTable>(lease: Lease, table: T) =>
  (eb: ExpressionBuilder<Database, T>) => {
    const row = eb as unknown as ExpressionBuilder<Database, LeasedTable>;
    return row.and([
      row('id', '=', lease.id),
      row('status', '=', LEASED_STATUS[table]),
      row('lease_owner', '=', lease.owner),
      row('lease_token', '=', lease.token),
    ]);
  };

/** The ids of the rows `owner` still leases: after a stop, those whose hand-back met a storage fault. */
export async function leasedBy(db: Kysely<Database>, table: LeasedTable, owner: string): Promise<string[]> {
  const leased = db as unknown as Kysely<Pick<Database, 'tasks'>>;
  const rows = await leased
    .selectFrom(table as 'tasks')
    .select('id')
    .where('status', '=', LEASED_STATUS[table] as 'running')
    .where('lease_owner', '=', owner)
    .execute();
  return rows.map((r) => r.id);
}
