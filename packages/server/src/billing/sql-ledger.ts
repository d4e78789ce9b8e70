import { sql, type Kysely, type Selectable } from 'kysely';
import type { AccountPlansTable, Database, LedgerEntriesTable } from '../store/sql/schema.ts';
import { InsufficientCredits, Unprocessable } from '../errors.ts';
import { newId } from '../domain/ids.ts';
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

/** The ledger on SQLite or PostgreSQL, in the tasks' database (holds commit with the task rows). */
export class SqlLedger implements Ledger {
  constructor(private readonly db: Kysely<Database>) {}

  async plan(accountId: string): Promise<AccountPlan | undefined> {
    const row = await this.db
      .selectFrom('account_plans')
      .selectAll()
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return row ? toPlan(row) : undefined;
  }

  async setPlan(accountId: string, change: PlanChange, now: number): Promise<AccountPlan> {
    return this.db.transaction().execute(async (trx) => {
      await ensurePlan(trx, accountId, now);
      const set: Partial<Selectable<AccountPlansTable>> = { updated_at: now };
      if (change.metered !== undefined) set.metered = change.metered ? 1 : 0;
      if (change.rpmLimit !== undefined) set.rpm_limit = change.rpmLimit;
      if (change.maxActiveTasks !== undefined) set.max_active_tasks = change.maxActiveTasks;
      await trx.updateTable('account_plans').set(set).where('account_id', '=', accountId).execute();
      return toPlan(
        await trx.selectFrom('account_plans').selectAll().where('account_id', '=', accountId).executeTakeFirstOrThrow(),
      );
    });
  }

  async credit(request: CreditRequest, now: number) {
    return this.db.transaction().execute(async (trx) => {
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
      // A deduction may not take the available balance below zero; one conditional statement, so concurrent ones cannot both pass.
      const changed = await trx
        .updateTable('account_plans')
        .set((eb) => ({
          balance_usd_ticks: eb('balance_usd_ticks', '+', request.amountUsdTicks),
          metered: 1,
          updated_at: now,
        }))
        .where('account_id', '=', request.accountId)
        .$if(request.amountUsdTicks < 0, (qb) =>
          qb.where((eb) =>
            eb(eb(eb('balance_usd_ticks', '-', eb.ref('held_usd_ticks')), '+', request.amountUsdTicks), '>=', 0),
          ),
        )
        .executeTakeFirst();
      if (Number(changed.numUpdatedRows) !== 1) throw new InsufficientCredits(-request.amountUsdTicks);
      const plan = await trx
        .selectFrom('account_plans')
        .selectAll()
        .where('account_id', '=', request.accountId)
        .executeTakeFirstOrThrow();
      return { entry: toEntry(entry), plan: toPlan(plan), replayed: false };
    });
  }

  async entries(query: { accountId?: string; taskId?: string; after?: string; limit: number }): Promise<LedgerEntry[]> {
    let q = this.db.selectFrom('ledger_entries').selectAll().orderBy('created_at').orderBy('id').limit(query.limit);
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
            eb('created_at', '>', after.created_at),
            eb.and([eb('created_at', '=', after.created_at), eb('id', '>', after.id)]),
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
      .select((eb) => [
        't.account_id',
        'a.name',
        't.model',
        day.as('day'),
        eb.fn.countAll<number>().as('tasks'),
        eb.fn.sum<number>('t.result_duration_ms').as('ms'),
        // A task's sound is in its params, written by JSON.stringify: `"audio":true` can only be
        // that key (a quote inside a string value is escaped), in SQLite and PostgreSQL alike.
        sql<number>`SUM(CASE WHEN t.params LIKE '%"audio":true%' THEN 1 ELSE 0 END)`.as('sound_tasks'),
        sql<number>`SUM(CASE WHEN t.params LIKE '%"audio":true%' THEN t.result_duration_ms ELSE 0 END)`.as('sound_ms'),
        eb.fn.sum<number>('t.cost_usd_ticks').as('cost'),
        eb.fn.sum<number>('t.upstream_cost_usd_ticks').as('upstream'),
      ])
      .where('t.status', 'in', ['succeeded', 'expired'])
      .where('t.cost_usd_ticks', 'is not', null)
      .groupBy(['t.account_id', 'a.name', 't.model', day])
      .orderBy(day)
      .orderBy('a.name')
      .orderBy('t.model');
    if (query.accountId) q = q.where('t.account_id', '=', query.accountId);
    if (query.since !== undefined) q = q.where('t.finished_at', '>=', query.since);
    if (query.until !== undefined) q = q.where('t.finished_at', '<', query.until);
    return (await q.execute()).map((r) => ({
      accountId: r.account_id,
      accountName: r.name,
      model: r.model,
      day: new Date(Number(r.day) * DAY_MS).toISOString().slice(0, 10),
      tasks: Number(r.tasks),
      seconds: Number(r.ms ?? 0) / 1000,
      soundTasks: Number(r.sound_tasks ?? 0),
      soundSeconds: Number(r.sound_ms ?? 0) / 1000,
      costUsdTicks: Number(r.cost ?? 0),
      upstreamCostUsdTicks: Number(r.upstream ?? 0),
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
      const t = totals.get(s.account_id) ?? { grant: 0, hold: 0, settle: 0, release: 0, adjust: 0 };
      t[s.kind as LedgerKind] += Number(s.total);
      entries += Number(s.n);
      totals.set(s.account_id, t);
    }
    for (const plan of plans) {
      const t = totals.get(plan.account_id) ?? { grant: 0, hold: 0, settle: 0, release: 0, adjust: 0 };
      totals.delete(plan.account_id);
      const balance = t.grant + t.adjust - t.settle;
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
        amount('hold').as('hold'),
        amount('settle').as('settle'),
        amount('release').as('release'),
      ])
      .groupBy(['e.task_id', 'e.account_id', 't.status'])
      .execute();
    const problems: LedgerProblem[] = [];
    for (const r of rows) {
      const [hold, settle, release] = [Number(r.hold), Number(r.settle), Number(r.release)];
      const ended = ['succeeded', 'failed', 'canceled', 'expired'].includes(r.status);
      const closed = settle + release;
      const where = { accountId: r.account_id, taskId: r.task_id ?? undefined };
      if (ended && closed !== hold)
        problems.push({ ...where, problem: `ended ${r.status} with hold ${hold} closed by ${closed}` });
      if (!ended && closed !== 0) problems.push({ ...where, problem: `still ${r.status} but its hold was closed` });
      if (settle > 0 && !['succeeded', 'expired'].includes(r.status))
        problems.push({ ...where, problem: `charged ${settle} but ${r.status}` });
    }
    return problems;
  }
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
  };
}

function toEntry(row: Selectable<LedgerEntriesTable>): LedgerEntry {
  return {
    id: row.id,
    accountId: row.account_id,
    taskId: row.task_id,
    kind: row.kind as LedgerKind,
    amountUsdTicks: Number(row.amount_usd_ticks),
    reason: row.reason,
    idempotencyKey: row.idempotency_key,
    createdAt: Number(row.created_at),
  };
}
