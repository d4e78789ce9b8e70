import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../store/sql/schema.ts';
import type { TransitionEffects } from '../store/sql/transition-effects.ts';
import type { ModelCatalog } from '../catalog/model-catalog.ts';
import { ApiError } from '../errors.ts';
import { holdTicks } from './prices.ts';

/** Over the key's life, or per calendar month (UTC). */
export type QuotaPeriod = 'total' | 'month';
export const QUOTA_PERIODS: readonly QuotaPeriod[] = ['total', 'month'];

/** What an operator sets: both limits null removes the quota. */
export interface QuotaLimits {
  maxTasks: number | null;
  maxUsdTicks: number | null;
  period: QuotaPeriod;
}

/**
 * A key's quota and what it used in its period: tasks created, and USD ticks (held while a task
 * runs, then what it cost). A month quota read after its month ended shows nothing used yet.
 */
export interface KeyQuota extends QuotaLimits {
  keyId: string;
  tasksUsed: number;
  usdTicksUsed: number;
  /** A month quota: when (epoch ms) its counters start over; null for a quota over the key's life. */
  resetsAt: number | null;
}

/** The first millisecond of the UTC month of `ms`. */
export function monthStart(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** The first millisecond of the UTC month after the one of `ms`. */
export function nextMonthStart(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/**
 * Whether the quota row's counters belong to a month before the one starting at `start`: then
 * they count nothing of the current month, and the next use starts them over. No sweeper resets
 * them; the statement that finds them stale does, in the same conditional UPDATE.
 */
function stale(start: number): Expression<SqlBool> {
  const periodStart = sql.ref('key_quotas.period_start');
  return sql<SqlBool>`(${sql.ref('key_quotas.period')} = 'month'
    AND (${periodStart} IS NULL OR ${periodStart} < ${start}))`;
}

/** A counter as it stands in the month starting at `start`: 0 when the row counts an earlier one. */
function current(column: 'tasks_used' | 'usd_ticks_used', start: number) {
  return sql<number>`(CASE WHEN ${stale(start)} THEN 0 ELSE ${sql.ref(`key_quotas.${column}`)} END)`;
}

/**
 * Per API key quotas (new-api's token quota): a number of tasks and a spend in USD ticks, over the
 * key's life or per UTC month. Checked in the transaction that inserts the task and holds its price:
 * one conditional UPDATE of the key's quota row, which also locks it (PostgreSQL) until the insert
 * commits, so concurrent submits with one key cannot both take its last place; for a month quota the
 * same statement starts the counters over when the month they count has ended. The ledger stays the
 * account's; the quota only refuses. At the task's end the spend is corrected from the price counted
 * at submit to what the task cost (nothing for a failure), in the period it was counted in: a task
 * that ends after its month was reset corrects nothing of the new one. Keys without a quota row
 * have no quota.
 */
export function keyQuotaEffects(catalog: Pick<ModelCatalog, 'find'>, clock: () => number): TransitionEffects {
  return {
    async created(trx, task, request) {
      if (!request.keyId) return;
      const price = holdTicks(catalog.find(task.model), task);
      // The task's own time decides its month, so its end corrects the period it was counted in.
      const start = monthStart(task.createdAt);
      const taken = await trx
        .updateTable('key_quotas')
        .set({
          tasks_used: sql<number>`${current('tasks_used', start)} + 1`,
          usd_ticks_used: sql<number>`${current('usd_ticks_used', start)} + CAST(${price} AS bigint)`,
          period_start: sql<number>`CASE WHEN ${stale(start)} THEN CAST(${start} AS bigint)
            ELSE ${sql.ref('key_quotas.period_start')} END`,
          updated_at: clock(),
        })
        .where('key_id', '=', request.keyId)
        .where((eb) => eb.or([eb('max_tasks', 'is', null), eb(current('tasks_used', start), '<', eb.ref('max_tasks'))]))
        .where((eb) =>
          eb.or([
            eb('max_usd_ticks', 'is', null),
            eb(sql`${current('usd_ticks_used', start)} + CAST(${price} AS bigint)`, '<=', eb.ref('max_usd_ticks')),
          ]),
        )
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) === 1) return;
      const quota = await readQuota(trx, request.keyId, task.createdAt);
      if (quota) throw quotaExceeded(quota, price);
    },

    // Only a task submitted with a key that has a quota has anything to correct.
    idleOnCompletion: (eb) =>
      eb.not(
        eb.exists(eb.selectFrom('key_quotas').select('key_id').whereRef('key_quotas.key_id', '=', 'tasks.api_key_id')),
      ),
    finishedLookups: (eb) => ({
      quota: eb.exists(
        eb.selectFrom('key_quotas').select('key_quotas.key_id').whereRef('key_quotas.key_id', '=', 'tasks.api_key_id'),
      ),
    }),

    async finished(trx, task, looked) {
      if (task.status === 'expired' || !Number(looked.quota)) return;
      // The ledger's effect, before this one in the same transaction, has written the task's cost.
      const row = await trx
        .selectFrom('tasks')
        .select(['api_key_id', 'cost_usd_ticks'])
        .where('id', '=', task.id)
        .executeTakeFirstOrThrow();
      const counted = holdTicks(catalog.find(task.model), task);
      const unused = counted - Number(row.cost_usd_ticks ?? 0);
      if (!row.api_key_id || unused === 0) return;
      await trx
        .updateTable('key_quotas')
        .set((eb) => ({ usd_ticks_used: eb('usd_ticks_used', '-', unused), updated_at: clock() }))
        .where('key_id', '=', row.api_key_id)
        .where((eb) => eb.or([eb('period', '=', 'total'), eb('period_start', '=', monthStart(task.createdAt))]))
        .execute();
    },
  };
}

export async function readQuota(db: Kysely<Database>, keyId: string, now: number): Promise<KeyQuota | undefined> {
  const row = await db.selectFrom('key_quotas').selectAll().where('key_id', '=', keyId).executeTakeFirst();
  return row && toQuota(row, now);
}

export async function readQuotas(db: Kysely<Database>, keyIds: string[], now: number): Promise<KeyQuota[]> {
  if (keyIds.length === 0) return [];
  return (await db.selectFrom('key_quotas').selectAll().where('key_id', 'in', keyIds).execute()).map((row) =>
    toQuota(row, now),
  );
}

/**
 * Sets (or with both limits null, removes) a key's quota. What it used in the current period is
 * kept, in one statement with the submits' own: a month quota whose month is over starts from
 * nothing, and a quota that becomes monthly counts what the key used so far as this month's
 * (never less than it really used this month).
 */
export async function writeQuota(
  db: Kysely<Database>,
  keyId: string,
  limits: QuotaLimits,
  now: number,
): Promise<KeyQuota | undefined> {
  if (limits.maxTasks === null && limits.maxUsdTicks === null) {
    await db.deleteFrom('key_quotas').where('key_id', '=', keyId).execute();
    return undefined;
  }
  const start = monthStart(now);
  const set = { max_tasks: limits.maxTasks, max_usd_ticks: limits.maxUsdTicks, period: limits.period, updated_at: now };
  await db
    .insertInto('key_quotas')
    .values({
      key_id: keyId,
      ...set,
      tasks_used: 0,
      usd_ticks_used: 0,
      period_start: limits.period === 'month' ? start : null,
    })
    .onConflict((oc) =>
      oc.column('key_id').doUpdateSet({
        ...set,
        tasks_used: current('tasks_used', start),
        usd_ticks_used: current('usd_ticks_used', start),
        period_start:
          limits.period === 'month'
            ? sql<number>`CASE WHEN ${sql.ref('key_quotas.period')} = 'month' AND NOT ${stale(start)}
                THEN ${sql.ref('key_quotas.period_start')} ELSE CAST(${start} AS bigint) END`
            : null,
      }),
    )
    .execute();
  return readQuota(db, keyId, now);
}

function toQuota(
  row: {
    key_id: string;
    max_tasks: number | null;
    max_usd_ticks: number | null;
    tasks_used: number;
    usd_ticks_used: number;
    period: string;
    period_start: number | null;
  },
  now: number,
): KeyQuota {
  const period: QuotaPeriod = row.period === 'month' ? 'month' : 'total';
  const over = period === 'month' && (row.period_start === null || Number(row.period_start) < monthStart(now));
  return {
    keyId: row.key_id,
    maxTasks: row.max_tasks === null ? null : Number(row.max_tasks),
    maxUsdTicks: row.max_usd_ticks === null ? null : Number(row.max_usd_ticks),
    period,
    tasksUsed: over ? 0 : Number(row.tasks_used),
    usdTicksUsed: over ? 0 : Number(row.usd_ticks_used),
    resetsAt: period === 'month' ? nextMonthStart(now) : null,
  };
}

function quotaExceeded(quota: KeyQuota, price: number): ApiError {
  const monthly = quota.period === 'month';
  const which = monthly ? 'monthly quota' : 'quota';
  const renews =
    quota.resetsAt === null ? '' : `; it starts over at ${new Date(quota.resetsAt).toISOString().replace('.000', '')}`;
  const message =
    quota.maxTasks !== null && quota.tasksUsed >= quota.maxTasks
      ? `This API key's ${which} of ${quota.maxTasks} tasks is used up (${quota.tasksUsed} created` +
        `${monthly ? ' this month' : ''})${renews}.`
      : `This API key's ${which} of ${quota.maxUsdTicks} USD ticks does not cover this request's price of ${price} ` +
        `(${quota.usdTicksUsed} used${monthly ? ' this month' : ''})${renews}.`;
  return new ApiError(402, 'billing_error', 'key_quota_exceeded', message);
}
