import type {
  AliasableExpression,
  Compilable,
  Expression,
  ExpressionBuilder,
  Kysely,
  QueryCreator,
  SqlBool,
} from 'kysely';
import type { Task } from '../../domain/task.ts';
import type { NewTask } from '../task-store.ts';
import type { Database, TasksTable } from './schema.ts';

/** What a statement that completes a task sees: its tables, and the completed row as `done`. */
export type CompletedRow = Database & { done: TasksTable };

/**
 * Writes that must commit or roll back with a task's own change (invariants 7 and 8, docs/architecture.md):
 * a ledger's hold at insert and its settle or release at the end, a webhook outbox's event at
 * the end. Each runs inside the transaction that changes the task row, after the change, so a
 * crash leaves both written or neither.
 */
export interface TransitionEffects {
  /**
   * The task row was just inserted (`request`: what the store was asked to insert, e.g. the API key).
   * Throwing refuses the submit: nothing of it is written.
   */
  created?(trx: Kysely<Database>, task: Task, request: NewTask): Promise<void>;
  /**
   * Columns the statement that completes a task (to `succeeded`) sets itself, which `finished`
   * would otherwise write with a statement of its own (a second version of the row): `set` is built
   * once into that statement with `value` as its parameter, computed from the task as it was
   * claimed, with its status and result as they will be. `value` is null when the store does not
   * know the claimed task; `finished` then still sees the row without them and writes them.
   */
  completedColumns?: {
    set(
      eb: ExpressionBuilder<Database, 'tasks'>,
      value: Expression<unknown>,
    ): Partial<Record<keyof TasksTable, Expression<unknown>>>;
    value(task: Task): unknown;
  };
  /**
   * A condition over a task's row under which `finished` writes nothing for its completion (no
   * hold to settle, no endpoint to tell), given `completedColumns` were set. Where statements are
   * round trips, a completion whose every effect's condition holds is one statement committed on
   * its own, without BEGIN and COMMIT around it; otherwise it runs in a transaction with `finished`.
   */
  idleOnCompletion?(eb: ExpressionBuilder<Database, 'tasks'>): Expression<SqlBool>;
  /**
   * For an effect that writes for every completion, so is never idle (the hourly usage rollup): that
   * write as a statement reading the completed row from `done`. Where a completion commits alone, it
   * rides in the same statement as one more common table expression, instead of keeping every
   * completion out of that path; `finished` writes it on every other path.
   */
  completedWrite?(qc: QueryCreator<CompletedRow>): Compilable;
  /**
   * Reads over the finished task's row (e.g. "does its account have a webhook endpoint?"), made by
   * the statement that finishes it, as extra columns of its RETURNING, and handed to `finished` by
   * name: an effect with nothing to do learns it without a query of its own (one round trip per
   * task and effect, bench/engine.bench.ts). Built once; `tasks` is the finished row.
   */
  finishedLookups?(eb: ExpressionBuilder<Database, 'tasks'>): Record<string, AliasableExpression<unknown>>;
  /**
   * The task just reached `succeeded`, `failed` or `canceled`, or went from `succeeded` to
   * `expired`: called once per such change, since each is one guarded statement that only one
   * writer can win. `looked` holds the values of `finishedLookups`, read with the change. Not
   * called for a completion that committed alone because every effect was idle for it
   * (`idleOnCompletion`) or wrote with it (`completedWrite`).
   */
  finished?(trx: Kysely<Database>, task: Task, looked: Record<string, unknown>): Promise<void>;
}
