import type { ExpressionBuilder } from 'kysely';
import type { Database } from './schema.ts';

/**
 * The revision a change of a task's status or progress writes: one more than the row's, in the
 * statement that makes the change, so it commits (or not) with it. Every such statement sets it
 * (the task store contract checks each transition); a reader compares revisions, never clocks,
 * so processes on different machines agree on which state came later (docs/streams.md).
 */
export function nextRevision(eb: ExpressionBuilder<Database, 'tasks'>) {
  return eb('revision', '+', 1);
}
