import {
  sql,
  type ExpressionBuilder,
  type Kysely,
  type OnConflictDatabase,
  type OnConflictTables,
  type QueryCreator,
} from 'kysely';
import type { Database } from '../store/sql/schema.ts';
import type { CompletedRow, TransitionEffects } from '../store/sql/transition-effects.ts';

export const HOUR_MS = 3_600_000;

/** The start of the UTC hour `ms` falls in. */
export function hourOf(ms: number): number {
  return Math.floor(ms / HOUR_MS) * HOUR_MS;
}

const KEY = ['hour', 'account_id', 'model', 'tier', 'outcome', 'error_code'] as const;

/**
 * Keeps `usage_hourly` (migration 0190): one row per hour, account, model, tier, outcome and failure
 * code, counting ended tasks, their spend and their rendered milliseconds. Written by the statement
 * that follows each task's end in that end's own transaction (invariant 7, docs/architecture.md:
 * with the ledger's settlement, which runs first and prices the task), so usage charts and the
 * overview read a few rows per hour instead of every task, and never disagree with the ledger.
 * Where a completion commits as one statement (PostgreSQL, nothing else to write), the same INSERT
 * rides in it, reading the completed row: the rollup costs that path no round trip.
 */
export function usageRollupEffects(clock: () => number): TransitionEffects {
  return {
    completedWrite: (qc: QueryCreator<CompletedRow>) =>
      qc
        .insertInto('usage_hourly')
        .columns([...KEY, 'tasks', 'spend_usd_ticks', 'rendered_ms'])
        .expression((eb) =>
          eb
            .selectFrom('done')
            .select((s) => [
              sql<number>`(done.finished_at / ${sql.lit(HOUR_MS)}) * ${sql.lit(HOUR_MS)}`.as('hour'),
              'account_id',
              'model',
              s.ref('service_tier').as('tier'),
              'status',
              sql.lit('').as('error_code'),
              sql.lit(1).as('tasks'),
              s.fn.coalesce('cost_usd_ticks', sql.lit(0)).as('spend_usd_ticks'),
              s.fn.coalesce('result_duration_ms', sql.lit(0)).as('rendered_ms'),
            ]),
        )
        .onConflict((oc) => oc.columns([...KEY]).doUpdateSet(sums)),
    async finished(trx, task) {
      // An expiry changes nothing spent; the task was counted when it succeeded.
      if (task.status === 'expired') return;
      const hour = hourOf(task.finishedAt ?? clock());
      await trx
        .insertInto('usage_hourly')
        .columns([...KEY, 'tasks', 'spend_usd_ticks', 'rendered_ms'])
        .expression((eb) =>
          eb
            .selectFrom('tasks')
            .select((s) => [
              sql.val(hour).as('hour'),
              'account_id',
              'model',
              s.ref('service_tier').as('tier'),
              'status',
              s.fn.coalesce('error_code', sql.val('')).as('error_code'),
              sql.val(1).as('tasks'),
              s.fn.coalesce('cost_usd_ticks', sql.val(0)).as('spend_usd_ticks'),
              sql<number>`CASE WHEN status = 'succeeded' THEN COALESCE(result_duration_ms, 0) ELSE 0 END`.as(
                'rendered_ms',
              ),
            ])
            .where('id', '=', task.id),
        )
        .onConflict((oc) => oc.columns([...KEY]).doUpdateSet(sums))
        .execute();
    },
  };
}

/** A refund gives money back in the hour it is made: the spend of its task's account, model and tier falls. */
export async function rollupRefund(
  trx: Kysely<Database>,
  refund: { taskId: string; accountId: string; amountUsdTicks: number },
  now: number,
): Promise<void> {
  const task = await trx
    .selectFrom('tasks')
    .select(['model', 'service_tier'])
    .where('id', '=', refund.taskId)
    .executeTakeFirst();
  if (!task) return;
  await trx
    .insertInto('usage_hourly')
    .values({
      hour: hourOf(now),
      account_id: refund.accountId,
      model: task.model,
      tier: task.service_tier,
      outcome: 'refund',
      error_code: '',
      tasks: 0,
      spend_usd_ticks: -refund.amountUsdTicks,
      rendered_ms: 0,
    })
    .onConflict((oc) => oc.columns([...KEY]).doUpdateSet(sums))
    .execute();
}

function sums(eb: ExpressionBuilder<OnConflictDatabase<Database, 'usage_hourly'>, OnConflictTables<'usage_hourly'>>) {
  return {
    tasks: eb('usage_hourly.tasks', '+', eb.ref('excluded.tasks')),
    spend_usd_ticks: eb('usage_hourly.spend_usd_ticks', '+', eb.ref('excluded.spend_usd_ticks')),
    rendered_ms: eb('usage_hourly.rendered_ms', '+', eb.ref('excluded.rendered_ms')),
  };
}
