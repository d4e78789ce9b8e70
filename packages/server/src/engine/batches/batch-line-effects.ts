import type { Kysely } from 'kysely';
import type { Task } from '../../domain/task.ts';
import type { Database } from '../../store/sql/schema.ts';
import { TASK_COLUMNS, toTask } from '../../store/sql/task-row.ts';
import type { TransitionEffects } from '../../store/sql/transition-effects.ts';

export interface BatchLineEffectOptions {
  /** A finished line's answer, frozen now: the task in its dialect, with content paths and no signed link. */
  render(task: Task): Record<string, unknown>;
  /** How long after its window a batch's files, and so its videos, are kept at the latest (docs/batch.md). */
  keepAfterWindowMs: number;
}

/**
 * The end of a batch's line, written in the transaction of its task's final change (as the ledger's
 * settle and the webhook outbox are): the line record gets its frozen answer, and the batch row its
 * counts and cost. So the batch knows when its last line ended without reading its lines, and a
 * request for the batch costs one row whatever its size.
 */
export function batchLineEffects(options: BatchLineEffectOptions): TransitionEffects {
  return {
    idleOnCompletion: (eb) => eb('tasks.batch_id', 'is', null),
    async finished(trx, finished) {
      if (!finished.batchId || !['succeeded', 'failed', 'canceled'].includes(finished.status)) return;
      // As it is now in this transaction: the ledger's effect, before this one, wrote its cost.
      const task = (await reread(trx, finished.id)) ?? finished;
      const succeeded = task.status === 'succeeded';
      const error = succeeded ? null : (task.error ?? { code: 'failed', message: 'The task failed.' });
      await trx
        .updateTable('batch_lines')
        .set({
          outcome: succeeded ? 'succeeded' : 'failed',
          body: succeeded ? JSON.stringify(options.render(task)) : null,
          error: error && JSON.stringify({ code: error.code, message: error.message }),
        })
        .where('task_id', '=', task.id)
        .where('outcome', 'is', null)
        .execute();
      const cost = task.usage?.costUsdTicks ?? 0;
      const batch = await trx
        .updateTable('batches')
        .set((eb) => ({
          ...(succeeded ? { completed: eb('completed', '+', 1) } : { failed: eb('failed', '+', 1) }),
          cost_usd_ticks: eb('cost_usd_ticks', '+', cost),
        }))
        .where('id', '=', task.batchId as string)
        .returning('expires_at')
        .executeTakeFirst();
      // Its video outlives the batch's files, however short the service's own retention.
      const keep = batch && Number(batch.expires_at) + options.keepAfterWindowMs;
      if (succeeded && keep && (task.expiresAt === null || task.expiresAt < keep))
        await trx.updateTable('tasks').set({ expires_at: keep }).where('id', '=', task.id).execute();
    },
  };
}

async function reread(trx: Kysely<Database>, id: string): Promise<Task | undefined> {
  const row = await trx.selectFrom('tasks').select(TASK_COLUMNS).where('id', '=', id).executeTakeFirst();
  return row && toTask(row);
}
