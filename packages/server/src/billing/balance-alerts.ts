import type { Kysely } from 'kysely';
import type { Database } from '../store/sql/schema.ts';

/** An account's available balance (balance − held) went under its alert threshold. */
export interface BalanceLow {
  accountId: string;
  balanceUsdTicks: number;
  heldUsdTicks: number;
  thresholdUsdTicks: number;
  /** Epoch ms of the ledger entry that crossed. */
  at: number;
}

/**
 * Writes what a crossing tells (the `account.balance_low` event and its deliveries: webhooks/
 * balance-low-outbox.ts), inside the transaction of the ledger entry that crossed, so the event
 * commits or rolls back with it (invariant 8, docs/architecture.md).
 */
export type BalanceLowSink = (trx: Kysely<Database>, alert: BalanceLow) => Promise<void>;

/** The plan's columns a change of its balance or held returns, for `balanceMoved`. */
export const ALERT_COLUMNS = [
  'balance_usd_ticks',
  'held_usd_ticks',
  'balance_alert_usd_ticks',
  'balance_low_since',
] as const;

export interface PlanAfterChange {
  balance_usd_ticks: number;
  held_usd_ticks: number;
  balance_alert_usd_ticks: number | null;
  balance_low_since: number | null;
}

/**
 * The balance alert's arm/fire state (docs/economics.md, "Balance alerts"), kept on the plan row:
 * `balance_low_since` null is armed. Called in the transaction that has just changed the plan's
 * balance or held, with the row as that UPDATE returned it (the UPDATE also row-locked it on
 * PostgreSQL, and SQLite has one writer): armed and now under the threshold fires, once; low and
 * now at or over it arms again. The state flips in one conditional UPDATE, so of any number of
 * concurrent changes on any number of processes exactly one fires for a crossing. An account
 * without a threshold costs nothing here: the returned row says so.
 */
export async function balanceMoved(
  trx: Kysely<Database>,
  accountId: string,
  plan: PlanAfterChange,
  now: number,
  sink: BalanceLowSink | undefined,
): Promise<void> {
  if (plan.balance_alert_usd_ticks === null) return;
  const threshold = Number(plan.balance_alert_usd_ticks);
  const [balance, held] = [Number(plan.balance_usd_ticks), Number(plan.held_usd_ticks)];
  const low = balance - held < threshold;
  const armed = plan.balance_low_since === null;
  // Still armed and over it, or still low and under it: nothing crossed.
  if (low !== armed) return;
  const flipped = await trx
    .updateTable('account_plans')
    .set({ balance_low_since: low ? now : null })
    .where('account_id', '=', accountId)
    .where('balance_low_since', low ? 'is' : 'is not', null)
    .executeTakeFirst();
  if (!low || Number(flipped.numUpdatedRows) !== 1) return;
  await sink?.(trx, { accountId, balanceUsdTicks: balance, heldUsdTicks: held, thresholdUsdTicks: threshold, at: now });
}

/**
 * Sets (or with null, removes) an account's threshold in the statement that also sets its state
 * from where the balance stands: a threshold set above the available balance starts low, with no
 * event (nothing crossed), and fires after the balance has been at or over it again.
 */
export async function setBalanceAlert(
  trx: Kysely<Database>,
  accountId: string,
  threshold: number | null,
  now: number,
): Promise<void> {
  await trx
    .updateTable('account_plans')
    .set((eb) => ({
      balance_alert_usd_ticks: threshold,
      balance_low_since:
        threshold === null
          ? null
          : eb
              .case()
              .when(eb(eb('balance_usd_ticks', '-', eb.ref('held_usd_ticks')), '<', threshold))
              .then(eb.fn.coalesce('balance_low_since', eb.val(now)))
              .else(null)
              .end(),
    }))
    .where('account_id', '=', accountId)
    .execute();
}
