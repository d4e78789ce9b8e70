import type { Kysely } from 'kysely';
import type { Task } from '../../engine/task.ts';
import type { Database } from './schema.ts';

/**
 * Writes that must commit or roll back with a task's own change (DESIGN invariants 7 and 8):
 * a ledger's hold at insert and its settle or release at the end, a webhook outbox's event at
 * the end. Each runs inside the transaction that changes the task row, after the change, so a
 * crash leaves both written or neither.
 */
export interface TransitionEffects {
  /** The task row was just inserted. Throwing refuses the submit: nothing of it is written. */
  created?(trx: Kysely<Database>, task: Task): Promise<void>;
  /**
   * The task just reached `succeeded`, `failed` or `canceled`, or went from `succeeded` to
   * `expired`: called once per such change, since each is one guarded statement that only one
   * writer can win.
   */
  finished?(trx: Kysely<Database>, task: Task): Promise<void>;
}
