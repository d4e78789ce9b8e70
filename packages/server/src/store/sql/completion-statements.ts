import { expressionBuilder, type Kysely, type UpdateQueryBuilder } from 'kysely';
import type { Database } from './schema.ts';
import type { SqlDialect } from './sql-dialect.ts';
import { heldBy } from './lease-fence.ts';
import { reusableStatement } from './reusable-query.ts';
import { TASK_COLUMNS, type TaskRow } from './task-row.ts';
import { nextRevision } from './task-revision.ts';
import type { TransitionEffects } from './transition-effects.ts';

/*
 * The statements that end a task's attempt, built once per store because every task runs them
 * (bench/engine.bench.ts measures why they are single statements). A completion takes one of three
 * paths (docs/architecture.md, "What a completion writes"):
 *
 * 1. PostgreSQL, every effect idle for this task (no hold to settle, no endpoint to tell) or writing
 *    within the statement (the hourly usage rollup's INSERT, TransitionEffects.completedWrite):
 *    `completeAlone`, one statement committed without a transaction: the fenced UPDATE of the task,
 *    the UPDATE of its attempt row and those writes in one WITH. The next claim is a statement of its own.
 * 2. PostgreSQL otherwise: `complete` (the same WITH statement) in a transaction, then each effect's
 *    `finished` writes and the next claim, one COMMIT.
 * 3. SQLite (no writes inside WITH): `complete` updates the task, `endAttempt` its attempt row, then
 *    the effects and the next claim, in one transaction.
 *
 * Values are named slots, filled per task by `completionValues` in the store: `key`, `bytes`,
 * `etag`, `durationMs`, `now`, `expiresAt`, `upstreamCost`, `delivery`, the lease (`taskId`, `owner`, `token`),
 * and `fx<i>` for the i-th effect's completed columns (TransitionEffects.completedColumns).
 */

/** A statement that changes task rows and returns them. */
export type ReturningTasks = UpdateQueryBuilder<Database, 'tasks', 'tasks', TaskRow>;

export type CompletionSlot =
  | 'key'
  | 'bytes'
  | 'etag'
  | 'durationMs'
  | 'now'
  | 'expiresAt'
  | 'upstreamCost'
  | 'delivery'
  | 'taskId'
  | 'owner'
  | 'token'
  | `fx${number}`;

/** The effects as a store runs them: what each sets with a completion, and what each reads with a final change. */
export interface EffectPlan {
  completers: ReadonlyArray<NonNullable<TransitionEffects['completedColumns']>>;
  /** The effects that follow a change to a final state, and the RETURNING aliases of each one's lookups. */
  finishers: ReadonlyArray<{ effect: TransitionEffects; lookups: Array<{ name: string; alias: string }> }>;
}

export function planEffects(effects: readonly TransitionEffects[]): EffectPlan {
  const eb = expressionBuilder<Database, 'tasks'>();
  return {
    completers: effects.flatMap((effect) => (effect.completedColumns ? [effect.completedColumns] : [])),
    finishers: effects
      .filter((e) => e.finished)
      .map((effect, i) => ({
        effect,
        lookups: Object.keys(effect.finishedLookups?.(eb) ?? {}).map((name) => ({ name, alias: `fx${i}_${name}` })),
      })),
  };
}

/** The statement's RETURNING gets each effect's lookups over the finished row (TransitionEffects.finishedLookups). */
export function returningFinished(plan: EffectPlan, qb: ReturningTasks): ReturningTasks {
  if (!plan.finishers.some((f) => f.lookups.length > 0)) return qb;
  // The extra columns ride along in the row; toTask ignores them.
  return qb.returning((eb) =>
    plan.finishers.flatMap(({ effect, lookups }) => {
      const built = effect.finishedLookups?.(eb) ?? {};
      return lookups.map(({ name, alias }) => built[name].as(alias));
    }),
  ) as unknown as ReturningTasks;
}

export function completionStatements(db: Kysely<Database>, dialect: SqlDialect, plan: EffectPlan) {
  const idle = plan.finishers.filter((f) => f.effect.idleOnCompletion);
  const writers = plan.finishers.filter((f) => f.effect.completedWrite);
  const complete = (slot: (name: CompletionSlot) => never, alone: boolean) =>
    db
      .updateTable('tasks')
      .set((eb) => ({
        ...Object.assign({}, ...plan.completers.map((c, i) => c.set(eb, eb.val(slot(`fx${i}`))))),
        status: 'succeeded',
        progress: 100,
        error_code: null,
        error_message: null,
        result_key: slot('key'),
        result_bytes: slot('bytes'),
        result_etag: slot('etag'),
        result_duration_ms: slot('durationMs'),
        result_delivery: slot('delivery'),
        finished_at: slot('now'),
        expires_at: slot('expiresAt'),
        lease_owner: null,
        lease_expires_at: null,
        upstream_cost_usd_ticks: slot('upstreamCost'),
        revision: nextRevision(eb),
      }))
      .where(heldBy({ id: slot('taskId'), owner: slot('owner'), token: slot('token'), expiresAt: 0 }, 'tasks'))
      .$if(alone, (qb) => qb.where((eb) => eb.and(idle.map((f) => f.effect.idleOnCompletion!(eb)))))
      .$call((qb) => returningFinished(plan, qb.returning(TASK_COLUMNS)));
  const completeWithAttempt = (slot: (name: CompletionSlot) => never, alone: boolean) => {
    if (!dialect.writesInWith) return complete(slot, alone);
    // The attempt's row is ended by the same statement, when the fenced change went through; alone,
    // the effects that always write do so here too, from the completed row (none when it did not go).
    const written = alone ? writers : [];
    return written
      .reduce(
        (qb, { effect }, i) =>
          qb.with(`written${i}`, (qc) => effect.completedWrite!(qc as never) as never) as unknown as typeof qb,
        db.with('done', () => complete(slot, alone)),
      )
      .with('ended', (qb) =>
        qb
          .updateTable('task_attempts')
          .set({ ended_at: slot('now'), outcome: 'succeeded', error_code: null })
          .where('task_id', '=', slot('taskId'))
          .where('attempt', '=', slot('token'))
          .where('ended_at', 'is', null)
          .where((eb) => eb.exists(eb.selectFrom('done').select('done.id'))),
      )
      .selectFrom('done')
      .selectAll();
  };
  // Where a transaction costs round trips, a completion the effects have nothing to add to
  // commits alone: the same statement, on condition that every effect is idle for it or writes in it.
  const alone =
    dialect.statementsAreRoundTrips &&
    dialect.writesInWith &&
    plan.finishers.every((f) => f.effect.idleOnCompletion || f.effect.completedWrite);
  return {
    complete: reusableStatement<CompletionSlot, TaskRow>((slot) => completeWithAttempt(slot, false)),
    completeAlone: alone
      ? reusableStatement<CompletionSlot, TaskRow>((slot) => completeWithAttempt(slot, true))
      : undefined,
    /** Ends an attempt's row (the completion's own on SQLite; every failure's and hand-back's). */
    endAttempt: reusableStatement<'now' | 'outcome' | 'code' | 'taskId' | 'attempt'>((slot) =>
      db
        .updateTable('task_attempts')
        .set({ ended_at: slot('now'), outcome: slot('outcome'), error_code: slot('code') })
        .where('task_id', '=', slot('taskId'))
        .where('attempt', '=', slot('attempt'))
        .where('ended_at', 'is', null),
    ),
  };
}
