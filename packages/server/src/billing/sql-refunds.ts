import type { Kysely, Selectable } from 'kysely';
import type { AccountPlansTable, Database, LedgerEntriesTable } from '../store/sql/schema.ts';
import { Conflict, InvalidRequest, NotFound } from '../errors.ts';
import { newId } from '../domain/ids.ts';
import type { AccountPlan, LedgerEntry } from './ledger.ts';
import { rollupRefund } from './usage-rollup.ts';
import { ALERT_COLUMNS, balanceMoved, type BalanceLowSink } from './balance-alerts.ts';

type Refunded = { entry: LedgerEntry; plan: AccountPlan; replayed: boolean };

/**
 * A task refund (Ledger.refund) in one transaction: the `refund` entry, naming the task's `settle`
 * entry, and the balance it gives back. The unique (task, kind) index allows one refund per task, so
 * two concurrent refunds cannot both pass, and a retry finds the first. Never more than was settled.
 */
export async function refundTask(
  db: Kysely<Database>,
  request: { taskId: string; amountUsdTicks?: number; reason: string },
  now: number,
  read: {
    entry: (row: Selectable<LedgerEntriesTable>) => LedgerEntry;
    plan: (row: Selectable<AccountPlansTable>) => AccountPlan;
  },
  balanceLow?: BalanceLowSink,
): Promise<Refunded> {
  return db.transaction().execute(async (trx) => {
    const task = await trx.selectFrom('tasks').select(['id']).where('id', '=', request.taskId).executeTakeFirst();
    if (!task) throw new NotFound('task', request.taskId);
    const settle = await trx
      .selectFrom('ledger_entries')
      .selectAll()
      .where('task_id', '=', request.taskId)
      .where('kind', '=', 'settle')
      .executeTakeFirst();
    if (!settle) throw new Conflict('nothing_to_refund', 'The task was not charged: there is nothing to refund.');
    const settled = Number(settle.amount_usd_ticks);
    const amount = request.amountUsdTicks ?? settled;
    if (!Number.isSafeInteger(amount) || amount < 1 || amount > settled)
      throw new InvalidRequest(
        'invalid_amount',
        `\`amount_usd_ticks\` must be an integer from 1 to ${settled}, what the task was charged.`,
        'amount_usd_ticks',
      );
    const row = {
      id: newId('le', 12),
      account_id: settle.account_id,
      task_id: request.taskId,
      kind: 'refund',
      amount_usd_ticks: amount,
      reason: request.reason,
      idempotency_key: null,
      created_at: now,
      refers_to: settle.id,
    };
    const inserted = await trx
      .insertInto('ledger_entries')
      .values(row)
      .onConflict((oc) => oc.columns(['task_id', 'kind']).doNothing())
      .executeTakeFirst();
    const planOf = async () =>
      read.plan(
        await trx
          .selectFrom('account_plans')
          .selectAll()
          .where('account_id', '=', settle.account_id)
          .executeTakeFirstOrThrow(),
      );
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) !== 1) {
      const first = await trx
        .selectFrom('ledger_entries')
        .selectAll()
        .where('task_id', '=', request.taskId)
        .where('kind', '=', 'refund')
        .executeTakeFirstOrThrow();
      if (Number(first.amount_usd_ticks) !== amount || first.reason !== request.reason)
        throw new Conflict(
          'already_refunded',
          `The task was already refunded ${first.amount_usd_ticks} ticks ('${first.reason}'); a task is refunded once.`,
        );
      return { entry: read.entry(first), plan: await planOf(), replayed: true };
    }
    const plan = await trx
      .updateTable('account_plans')
      .set((eb) => ({ balance_usd_ticks: eb('balance_usd_ticks', '+', amount), updated_at: now }))
      .where('account_id', '=', settle.account_id)
      .returning(ALERT_COLUMNS)
      .executeTakeFirst();
    await rollupRefund(trx, { taskId: request.taskId, accountId: settle.account_id, amountUsdTicks: amount }, now);
    // Money given back may lift the available balance to the alert threshold again: that re-arms it.
    if (plan) await balanceMoved(trx, settle.account_id, plan, now, balanceLow);
    return { entry: read.entry(row), plan: await planOf(), replayed: false };
  });
}
