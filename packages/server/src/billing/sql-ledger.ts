import { sql, type Kysely, type Selectable } from 'kysely';
import type { AccountPlansTable, Database, LedgerEntriesTable } from '../store/sql/schema.ts';
import { Conflict, InsufficientCredits, InvalidRequest, Unprocessable } from '../errors.ts';
import { MAX_USD_TICKS } from '@vidgen/protocol';
import { newId } from '../domain/ids.ts';
import { refundTask } from './sql-refunds.ts';
import { readQuotas, writeQuota, type QuotaLimits } from './key-quotas.ts';
import { ALERT_COLUMNS, balanceMoved, setBalanceAlert, type BalanceLowSink } from './balance-alerts.ts';
import { listPriceGroups, priceGroupOf, writePriceGroup, type PriceGroup } from './price-groups.ts';
import type { AccountStore } from '../store/account-store.ts';
import { SqlAccountStore } from '../store/sql/sql-account-store.ts';
import type {
  AccountPlan,
  CreditRequest,
  Ledger,
  LedgerEntry,
  LedgerKind,
  LedgerProblem,
  PlanChange,
  UsageQuery,
  UsageRow,
  VerifyReport,
} from './ledger.ts';

const DAY_MS = 86_400_000;

/** Runs `work` in a transaction, or in the one `db` already is (Kysely does not nest them). */
function inTransaction<T>(db: Kysely<Database>, work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}

/** The ledger on SQLite or PostgreSQL, in the tasks' database (holds commit with the task rows). */
export class SqlLedger implements Ledger {
  /** `balanceLow` writes the alert of a credit or refund that crosses an account's threshold (balance-alerts.ts). */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly balanceLow?: BalanceLowSink,
  ) {}

  async plan(accountId: string): Promise<AccountPlan | undefined> {
    const row = await this.db
      .selectFrom('account_plans')
      .selectAll()
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return row ? toPlan(row) : undefined;
  }

  atomically<T>(work: (tx: { ledger: Ledger; accounts: AccountStore }) => Promise<T>): Promise<T> {
    return inTransaction(this.db, (trx) =>
      work({ ledger: new SqlLedger(trx, this.balanceLow), accounts: new SqlAccountStore(trx) }),
    );
  }

  async setPlan(accountId: string, change: PlanChange, now: number): Promise<AccountPlan> {
    return inTransaction(this.db, async (trx) => {
      await ensurePlan(trx, accountId, now);
      const set: Partial<Selectable<AccountPlansTable>> = { updated_at: now };
      if (change.metered !== undefined) set.metered = change.metered ? 1 : 0;
      if (change.rpmLimit !== undefined) set.rpm_limit = change.rpmLimit;
      if (change.maxActiveTasks !== undefined) set.max_active_tasks = change.maxActiveTasks;
      if (change.priceGroup !== undefined) set.price_group = change.priceGroup;
      if (change.maxTaskUsdTicks !== undefined) set.max_task_usd_ticks = change.maxTaskUsdTicks;
      if (change.maxDailyUsdTicks !== undefined) set.max_daily_usd_ticks = change.maxDailyUsdTicks;
      await trx.updateTable('account_plans').set(set).where('account_id', '=', accountId).execute();
      if (change.balanceAlertUsdTicks !== undefined)
        await setBalanceAlert(trx, accountId, change.balanceAlertUsdTicks, now);
      return toPlan(
        await trx.selectFrom('account_plans').selectAll().where('account_id', '=', accountId).executeTakeFirstOrThrow(),
      );
    });
  }

  async credit(request: CreditRequest, now: number) {
    return inTransaction(this.db, async (trx) => {
      await ensurePlan(trx, request.accountId, now);
      const kind: LedgerKind = request.amountUsdTicks > 0 ? 'grant' : 'adjust';
      const entry: Selectable<LedgerEntriesTable> = {
        id: newId('le', 12),
        account_id: request.accountId,
        task_id: null,
        kind,
        amount_usd_ticks: request.amountUsdTicks,
        reason: request.reason,
        idempotency_key: request.idempotencyKey ?? null,
        created_at: now,
        refers_to: null,
      };
      const inserted = await trx
        .insertInto('ledger_entries')
        .values(entry)
        .onConflict((oc) => oc.columns(['account_id', 'idempotency_key']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) !== 1) {
        const first = await trx
          .selectFrom('ledger_entries')
          .selectAll()
          .where('account_id', '=', request.accountId)
          .where('idempotency_key', '=', request.idempotencyKey!)
          .executeTakeFirstOrThrow();
        if (Number(first.amount_usd_ticks) !== request.amountUsdTicks || first.reason !== request.reason) {
          throw new Unprocessable(
            'idempotency_key_reused',
            'This Idempotency-Key was already used with a different amount or reason.',
            'Idempotency-Key',
          );
        }
        const plan = await trx
          .selectFrom('account_plans')
          .selectAll()
          .where('account_id', '=', request.accountId)
          .executeTakeFirstOrThrow();
        return { entry: toEntry(first), plan: toPlan(plan), replayed: true };
      }
      // Metering changes only when the operator says so: a grant to an unmetered account would never
      // be spent, so it is refused unless the request meters the account too.
      if (request.meter)
        await trx
          .updateTable('account_plans')
          .set({ metered: 1 })
          .where('account_id', '=', request.accountId)
          .execute();
      else await refuseUnmetered(trx, request.accountId);
      // A deduction may not take the available balance below zero; one conditional statement, so concurrent ones cannot
      // both pass.
      const changed = await trx
        .updateTable('account_plans')
        .set((eb) => ({
          balance_usd_ticks: eb('balance_usd_ticks', '+', request.amountUsdTicks),
          updated_at: now,
        }))
        .where('account_id', '=', request.accountId)
        .$if(request.amountUsdTicks < 0, (qb) =>
          qb.where((eb) =>
            eb(eb(eb('balance_usd_ticks', '-', eb.ref('held_usd_ticks')), '+', request.amountUsdTicks), '>=', 0),
          ),
        )
        // A balance over 2^53 − 1 could not be read back exactly by any client (invariant 7).
        .$if(request.amountUsdTicks > 0, (qb) =>
          qb.where((eb) => eb(eb('balance_usd_ticks', '+', request.amountUsdTicks), '<=', MAX_USD_TICKS)),
        )
        .returning(ALERT_COLUMNS)
        .executeTakeFirst();
      if (!changed && request.amountUsdTicks > 0)
        throw new InvalidRequest(
          'out_of_range',
          `This grant would take the balance over ${MAX_USD_TICKS} USD ticks.`,
          'amount_usd_ticks',
        );
      if (!changed) throw new InsufficientCredits(-request.amountUsdTicks);
      // A grant may re-arm the balance alert, a deduction fire it.
      await balanceMoved(trx, request.accountId, changed, now, this.balanceLow);
      const plan = await trx
        .selectFrom('account_plans')
        .selectAll()
        .where('account_id', '=', request.accountId)
        .executeTakeFirstOrThrow();
      return { entry: toEntry(entry), plan: toPlan(plan), replayed: false };
    });
  }

  priceGroups() {
    return listPriceGroups(this.db);
  }

  setPriceGroup(group: PriceGroup, now: number) {
    return writePriceGroup(this.db, group, now);
  }

  priceGroupOf(accountId: string) {
    return priceGroupOf(this.db, accountId);
  }

  keyQuotas(keyIds: string[], now: number) {
    return readQuotas(this.db, keyIds, now);
  }

  setKeyQuota(keyId: string, limits: QuotaLimits, now: number) {
    return writeQuota(this.db, keyId, limits, now);
  }

  refund(request: { taskId: string; amountUsdTicks?: number; reason: string }, now: number) {
    return refundTask(this.db, request, now, { entry: toEntry, plan: toPlan }, this.balanceLow);
  }

  async entries(query: {
    accountId?: string;
    taskId?: string;
    after?: string;
    limit: number;
    order?: 'asc' | 'desc';
  }): Promise<LedgerEntry[]> {
    const order = query.order ?? 'asc';
    const past = order === 'asc' ? '>' : '<';
    let q = this.db
      .selectFrom('ledger_entries')
      .selectAll()
      .orderBy('created_at', order)
      .orderBy('id', order)
      .limit(query.limit);
    if (query.accountId) q = q.where('account_id', '=', query.accountId);
    if (query.taskId) q = q.where('task_id', '=', query.taskId);
    if (query.after) {
      const after = await this.db
        .selectFrom('ledger_entries')
        .select(['created_at', 'id'])
        .where('id', '=', query.after)
        .executeTakeFirst();
      if (after)
        q = q.where((eb) =>
          eb.or([
            eb('created_at', past, after.created_at),
            eb.and([eb('created_at', '=', after.created_at), eb('id', past, after.id)]),
          ]),
        );
    }
    return (await q.execute()).map(toEntry);
  }

  async usage(query: UsageQuery): Promise<UsageRow[]> {
    const day = sql<number>`t.finished_at / ${sql.lit(DAY_MS)}`;
    let q = this.db
      .selectFrom('tasks as t')
      .innerJoin('accounts as a', 'a.id', 't.account_id')
      // At most one refund per task (the unique (task, kind) index): joining it adds no rows.
      .leftJoin('ledger_entries as r', (join) => join.onRef('r.task_id', '=', 't.id').on('r.kind', '=', 'refund'))
      .select((eb) => [
        't.account_id',
        'a.name',
        't.api_key_id',
        't.model',
        't.service_tier',
        day.as('day'),
        eb.fn.countAll<number>().as('tasks'),
        eb.fn.sum<number>('t.result_duration_ms').as('ms'),
        // A task's sound is in its params, written by JSON.stringify: `"audio":true` can only be
        // that key (a quote inside a string value is escaped), in SQLite and PostgreSQL alike.
        sql<number>`SUM(CASE WHEN t.params LIKE '%"audio":true%' THEN 1 ELSE 0 END)`.as('sound_tasks'),
        sql<number>`SUM(CASE WHEN t.params LIKE '%"audio":true%' THEN t.result_duration_ms ELSE 0 END)`.as('sound_ms'),
        eb.fn.sum<number>('t.cost_usd_ticks').as('cost'),
        eb.fn.sum<number>('t.upstream_cost_usd_ticks').as('upstream'),
        eb.fn.sum<number>('r.amount_usd_ticks').as('refunded'),
      ])
      // What was charged or cost the operator: every succeeded task, and any other ended one that
      // was charged (a cancel an upstream could not stop) or whose upstream cost is known.
      .where('t.cost_usd_ticks', 'is not', null)
      .where((eb) =>
        eb.or([
          eb('t.status', 'in', ['succeeded', 'expired']),
          eb('t.cost_usd_ticks', '>', 0),
          eb('t.upstream_cost_usd_ticks', 'is not', null),
        ]),
      )
      .groupBy(['t.account_id', 'a.name', 't.api_key_id', 't.model', 't.service_tier', day])
      .orderBy(day)
      .orderBy('a.name')
      .orderBy('t.model')
      .orderBy('t.api_key_id');
    if (query.accountId) q = q.where('t.account_id', '=', query.accountId);
    if (query.since !== undefined) q = q.where('t.finished_at', '>=', query.since);
    if (query.until !== undefined) q = q.where('t.finished_at', '<', query.until);
    return (await q.execute()).map((r) => ({
      accountId: r.account_id,
      accountName: r.name,
      keyId: r.api_key_id,
      model: r.model,
      serviceTier: r.service_tier,
      day: new Date(Number(r.day) * DAY_MS).toISOString().slice(0, 10),
      tasks: Number(r.tasks),
      seconds: Number(r.ms ?? 0) / 1000,
      soundTasks: Number(r.sound_tasks ?? 0),
      soundSeconds: Number(r.sound_ms ?? 0) / 1000,
      costUsdTicks: Number(r.cost ?? 0),
      upstreamCostUsdTicks: Number(r.upstream ?? 0),
      refundedUsdTicks: Number(r.refunded ?? 0),
    }));
  }

  async verify(): Promise<VerifyReport> {
    const problems: LedgerProblem[] = [];
    const sums = await this.db
      .selectFrom('ledger_entries')
      .select((eb) => [
        'account_id',
        'kind',
        eb.fn.sum<number>('amount_usd_ticks').as('total'),
        eb.fn.countAll<number>().as('n'),
      ])
      .groupBy(['account_id', 'kind'])
      .execute();
    const plans = await this.db.selectFrom('account_plans').selectAll().execute();
    const totals = new Map<string, Record<LedgerKind, number>>();
    let entries = 0;
    for (const s of sums) {
      const t = totals.get(s.account_id) ?? noTotals();
      t[s.kind as LedgerKind] += Number(s.total);
      entries += Number(s.n);
      totals.set(s.account_id, t);
    }
    for (const plan of plans) {
      const t = totals.get(plan.account_id) ?? noTotals();
      totals.delete(plan.account_id);
      const balance = t.grant + t.adjust - t.settle + t.refund;
      const held = t.hold - t.settle - t.release;
      if (balance !== Number(plan.balance_usd_ticks))
        problems.push({
          accountId: plan.account_id,
          problem: `balance ${plan.balance_usd_ticks} but entries give ${balance}`,
        });
      if (held !== Number(plan.held_usd_ticks))
        problems.push({ accountId: plan.account_id, problem: `held ${plan.held_usd_ticks} but entries give ${held}` });
      if (Number(plan.balance_usd_ticks) - Number(plan.held_usd_ticks) < 0) {
        problems.push({ accountId: plan.account_id, problem: 'available balance is negative' });
      }
    }
    for (const accountId of totals.keys())
      problems.push({ accountId, problem: 'ledger entries for an account without a plan' });
    problems.push(...(await this.taskProblems()));
    return { accounts: plans.length, entries, problems };
  }

  /** Per task: a hold is closed exactly when the task has ended, by settle + release = hold or release = hold. */
  private async taskProblems(): Promise<LedgerProblem[]> {
    const amount = (kind: LedgerKind) =>
      sql<number>`sum(case when e.kind = ${kind} then e.amount_usd_ticks else 0 end)`;
    const rows = await this.db
      .selectFrom('ledger_entries as e')
      .innerJoin('tasks as t', 't.id', 'e.task_id')
      .select([
        'e.task_id',
        'e.account_id',
        't.status',
        't.cost_usd_ticks',
        amount('hold').as('hold'),
        amount('settle').as('settle'),
        amount('release').as('release'),
        amount('refund').as('refund'),
      ])
      .groupBy(['e.task_id', 'e.account_id', 't.status', 't.cost_usd_ticks'])
      .execute();
    const problems: LedgerProblem[] = [];
    for (const r of rows) {
      const [hold, settle, release] = [Number(r.hold), Number(r.settle), Number(r.release)];
      if (Number(r.refund) > settle)
        problems.push({
          accountId: r.account_id,
          taskId: r.task_id ?? undefined,
          problem: `refunded ${r.refund} of ${settle}`,
        });
      const ended = ['succeeded', 'failed', 'canceled', 'expired'].includes(r.status);
      const closed = settle + release;
      const where = { accountId: r.account_id, taskId: r.task_id ?? undefined };
      if (ended && closed !== hold)
        problems.push({ ...where, problem: `ended ${r.status} with hold ${hold} closed by ${closed}` });
      if (!ended && closed !== 0) problems.push({ ...where, problem: `still ${r.status} but its hold was closed` });
      // A cancel an upstream could not stop may cost what the channel's cancel_charge says: the task's own cost.
      const cancelCharge = r.status === 'canceled' && settle === Number(r.cost_usd_ticks);
      if (settle > 0 && !['succeeded', 'expired'].includes(r.status) && !cancelCharge)
        problems.push({ ...where, problem: `charged ${settle} but ${r.status}` });
    }
    return problems;
  }
}

function noTotals(): Record<LedgerKind, number> {
  return { grant: 0, hold: 0, settle: 0, release: 0, adjust: 0, refund: 0 };
}

async function refuseUnmetered(db: Kysely<Database>, accountId: string): Promise<void> {
  const plan = await db
    .selectFrom('account_plans')
    .select('metered')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (Number(plan?.metered) === 1) return;
  throw new Conflict(
    'account_unmetered',
    'The account is unmetered, so credits would never be spent: make it metered first (PATCH `metered: true`), ' +
      'or send `metered: true` with the grant.',
  );
}

async function ensurePlan(db: Kysely<Database>, accountId: string, now: number): Promise<void> {
  await db
    .insertInto('account_plans')
    .values({
      account_id: accountId,
      metered: 0,
      balance_usd_ticks: 0,
      held_usd_ticks: 0,
      rpm_limit: null,
      max_active_tasks: null,
      updated_at: now,
      price_group: null,
      max_task_usd_ticks: null,
      max_daily_usd_ticks: null,
    })
    .onConflict((oc) => oc.column('account_id').doNothing())
    .execute();
}

export function toPlan(row: Selectable<AccountPlansTable>): AccountPlan {
  return {
    accountId: row.account_id,
    metered: Number(row.metered) === 1,
    balanceUsdTicks: Number(row.balance_usd_ticks),
    heldUsdTicks: Number(row.held_usd_ticks),
    rpmLimit: row.rpm_limit,
    maxActiveTasks: row.max_active_tasks,
    priceGroup: row.price_group ?? null,
    maxTaskUsdTicks: row.max_task_usd_ticks === null ? null : Number(row.max_task_usd_ticks),
    maxDailyUsdTicks: row.max_daily_usd_ticks === null ? null : Number(row.max_daily_usd_ticks),
    balanceAlertUsdTicks: row.balance_alert_usd_ticks === null ? null : Number(row.balance_alert_usd_ticks),
    balanceLowSince: row.balance_low_since === null ? null : Number(row.balance_low_since),
  };
}

export function toEntry(row: Selectable<LedgerEntriesTable>): LedgerEntry {
  return {
    id: row.id,
    accountId: row.account_id,
    taskId: row.task_id,
    kind: row.kind as LedgerKind,
    amountUsdTicks: Number(row.amount_usd_ticks),
    reason: row.reason,
    idempotencyKey: row.idempotency_key,
    createdAt: Number(row.created_at),
    refersTo: row.refers_to,
  };
}
