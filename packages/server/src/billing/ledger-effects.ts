import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { Database } from '../store/sql/schema.ts';
import type { TransitionEffects } from '../store/sql/transition-effects.ts';
import type { ModelCatalog } from '../catalog/model-catalog.ts';
import type { Task } from '../domain/task.ts';
import { newId } from '../domain/ids.ts';
import { InsufficientCredits, TooManyRequests } from '../errors.ts';
import { chargeFromHold, holdTicks } from './prices.ts';
import { endedOutcome } from './ended-outcome.ts';
import { checkDailyCap, checkTaskCap } from './spend-caps.ts';
import { groupTicksPerSecond, readPriceGroup } from './price-groups.ts';
import type { LedgerKind } from './ledger.ts';
import { ALERT_COLUMNS, balanceMoved, type BalanceLowSink } from './balance-alerts.ts';

/** Seconds a client refused for too many active tasks waits before trying again. */
export const ACTIVE_CAP_RETRY_SECONDS = 5;

/**
 * The ledger's writes that commit with the task's own changes (invariant 7, docs/architecture.md), through the
 * store's transition seam: the hold and the active-task cap at insert, settle or release at the
 * end. Correct across processes: the account's plan row is updated (so locked on PostgreSQL)
 * before anything is counted, and the balance check is a condition of that same update. A hold
 * that takes the available balance under the account's alert threshold fires the alert
 * (`balanceLow`) in the same transaction (balance-alerts.ts).
 */
export function ledgerEffects(
  catalog: Pick<ModelCatalog, 'find'>,
  clock: () => number,
  balanceLow?: BalanceLowSink,
): TransitionEffects {
  return {
    async created(trx, task) {
      const plan = await trx
        .selectFrom('account_plans')
        .select(['metered', 'max_active_tasks', 'price_group', 'max_task_usd_ticks', 'max_daily_usd_ticks'])
        .where('account_id', '=', task.accountId)
        .executeTakeFirst();
      if (!plan) return;
      const metered = Number(plan.metered) === 1;
      // The account's price group fixes the price held, and so the task's price (chargeFromHold).
      const group = metered ? await readPriceGroup(trx, plan.price_group) : undefined;
      const perSecond = group && ((ticks: number) => groupTicksPerSecond(group, task.model, ticks));
      const price = metered ? holdTicks(catalog.find(task.model), task, perSecond) : 0;
      checkTaskCap(plan.max_task_usd_ticks, metered ? price : holdTicks(catalog.find(task.model), task));
      const held = await trx
        .updateTable('account_plans')
        .set((eb) => ({ held_usd_ticks: eb('held_usd_ticks', '+', price) }))
        .where('account_id', '=', task.accountId)
        .$if(metered, (qb) => qb.where((eb) => eb(eb('balance_usd_ticks', '-', eb.ref('held_usd_ticks')), '>=', price)))
        .returning(ALERT_COLUMNS)
        .executeTakeFirst();
      if (!held) throw new InsufficientCredits(price);
      if (metered) await checkDailyCap(trx, task.accountId, plan.max_daily_usd_ticks, price, clock());
      // A batch's lines wait in the batch lane and neither count towards the cap nor are held by it.
      if (plan.max_active_tasks !== null && task.batchId === null) {
        // The new row counts itself; the plan row lock orders concurrent submits of the account.
        const active = await trx
          .selectFrom('tasks')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', task.accountId)
          .where('status', 'in', ['queued', 'running'])
          .where('batch_id', 'is', null)
          .executeTakeFirstOrThrow();
        if (Number(active.n) > plan.max_active_tasks) {
          throw new TooManyRequests(
            'too_many_tasks',
            `The account already has ${plan.max_active_tasks} tasks queued or running, its limit; submit again ` +
              `when one has ended.`,
            ACTIVE_CAP_RETRY_SECONDS,
          );
        }
      }
      if (!metered) return;
      const now = clock();
      await append(trx, task, 'hold', price, `hold for ${task.model}`, now);
      // A refusal by a later effect rolls the alert back with the hold.
      await balanceMoved(trx, task.accountId, held, now, balanceLow);
    },

    // A task without a hold (an unmetered account) is priced from itself: its completion sets the
    // price. With a hold the price depends on it, and `finished` writes it with the settlement.
    completedColumns: {
      set: (eb, value) => ({
        cost_usd_ticks: sql<number>`CASE WHEN ${eb.exists(holdOf(eb))} THEN NULL ELSE CAST(${value} AS bigint) END`,
      }),
      value: (task) => {
        const model = catalog.find(task.model);
        return chargeFromHold(model, task, holdTicks(model, task));
      },
    },

    // Without a hold the completion's price is all there is to write, and completedColumns sets it.
    idleOnCompletion: (eb) => eb.not(eb.exists(holdOf(eb))),

    // The task's hold, and whether it was already settled or released, read by the statement that
    // finishes the task: an unmetered task (no hold) then costs no query here.
    finishedLookups: (eb) => ({
      hold: holdOf(eb),
      closed: eb.exists(
        eb
          .selectFrom('ledger_entries')
          .select('ledger_entries.kind')
          .whereRef('ledger_entries.task_id', '=', 'tasks.id')
          .where('ledger_entries.kind', 'in', ['settle', 'release']),
      ),
      // A relay's checkpoint: what its upstream reported costing, and what a cancel it cannot pass on costs.
      backendState: eb.ref('tasks.backend_state'),
    }),

    async finished(trx, task, looked) {
      // Settled when it succeeded; its expiry changes nothing owed.
      if (task.status === 'expired') return;
      const model = catalog.find(task.model);
      const hold = looked.hold === null || looked.hold === undefined ? undefined : Number(looked.hold);
      // EXISTS is a boolean on PostgreSQL, 0 or 1 on SQLite.
      const open = hold !== undefined && !Number(looked.closed);
      const heldAmount = hold ?? holdTicks(model, task);
      const outcome = endedOutcome(task, model, heldAmount, looked.backendState);
      const cost = outcome.costUsdTicks;
      const upstream = outcome.upstreamCostUsdTicks;
      // Already set by the completion when it could price the task (completedColumns).
      if (task.usage?.costUsdTicks !== cost || upstream !== undefined)
        await trx
          .updateTable('tasks')
          .set({ cost_usd_ticks: cost, ...(upstream !== undefined ? { upstream_cost_usd_ticks: upstream } : {}) })
          .where('id', '=', task.id)
          .execute();
      if (!open) return;
      const now = clock();
      if (cost > 0) await append(trx, task, 'settle', cost, outcome.reason, now);
      if (heldAmount - cost > 0)
        await append(
          trx,
          task,
          'release',
          heldAmount - cost,
          task.status === 'succeeded' ? 'unused part of the hold' : `task ${task.status}`,
          now,
        );
      const plan = await trx
        .updateTable('account_plans')
        .set((eb) => ({
          balance_usd_ticks: eb('balance_usd_ticks', '-', cost),
          held_usd_ticks: eb('held_usd_ticks', '-', heldAmount),
          updated_at: now,
        }))
        .where('account_id', '=', task.accountId)
        .returning(ALERT_COLUMNS)
        .executeTakeFirst();
      // A settle never costs more than its hold, so the available balance only rises here: it may re-arm the alert.
      if (plan) await balanceMoved(trx, task.accountId, plan, now, balanceLow);
    },
  };
}

/** The amount the task's hold holds, as a subquery over the task's row. */
function holdOf(eb: ExpressionBuilder<Database, 'tasks'>) {
  return eb
    .selectFrom('ledger_entries')
    .select('ledger_entries.amount_usd_ticks')
    .whereRef('ledger_entries.task_id', '=', 'tasks.id')
    .where('ledger_entries.kind', '=', 'hold');
}

/** One entry; the unique (task, kind) index makes a second one of a kind fail the whole transaction. */
async function append(
  trx: Kysely<Database>,
  task: Task,
  kind: LedgerKind,
  amount: number,
  reason: string,
  now: number,
): Promise<void> {
  await trx
    .insertInto('ledger_entries')
    .values({
      id: newId('le', 12),
      account_id: task.accountId,
      task_id: task.id,
      kind,
      amount_usd_ticks: amount,
      reason,
      idempotency_key: null,
      created_at: now,
      refers_to: null,
    })
    .execute();
}
