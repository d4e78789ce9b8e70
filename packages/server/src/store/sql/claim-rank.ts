import { sql, type Kysely, type RawBuilder } from 'kysely';
import { LOW_CLAIM_RANK } from '../../domain/task.ts';
import type { Database } from './schema.ts';

/**
 * The claim rank a lane serves next (docs/batch.md, "The claim order"): the lowest rank with a
 * runnable task, except that flex and batch lines (the low rank) hold at most `lowSlots` of this
 * owner's slots while tasks of a higher rank are queued or running in the lane; -1 when none may
 * start. Each test is a probe of the (backend, status, claim_rank, …) index, so its cost does not
 * grow with the backlog; the running low tasks counted are this owner's (bounded by its slots), so
 * each process keeps its own share of its own slots with no counter of its own.
 */
export function nextRank(
  backend: unknown,
  now: unknown,
  owner: unknown,
  lowSlots: unknown,
  /** Claims of this owner in the lane under way besides this one: each may start a low-rank task. */
  lowReserved: unknown,
): RawBuilder<number> {
  const runnable = (rank: number) => runnableOf(backend, now, rank);
  return sql<number>`(CASE
    WHEN ${runnable(0)} THEN 0
    WHEN ${runnable(1)} THEN 1
    WHEN ${runnable(LOW_CLAIM_RANK)} AND (${lowSlots} <= 0 OR ${lowRoom(backend, owner, lowSlots, lowReserved)}) THEN 2
    ELSE -1 END)`;
}

/**
 * Whether the lane has a runnable queued task of the rank: a probe of the (backend, status,
 * claim_rank, …) index. The unary plus keeps `available_at` out of index choice: SQLite, with no
 * statistics, preferred the (status, backend, available_at) index for its range, and then read every
 * queued row of the lane (a thousand batch lines) to learn that none had rank 0.
 */
function runnableOf(backend: unknown, now: unknown, rank: number) {
  return sql`EXISTS (SELECT 1 FROM tasks WHERE backend = ${backend} AND status = 'queued'
    AND claim_rank = ${sql.lit(rank)} AND +available_at <= ${now})`;
}

/** Whether this owner may start one more low-rank task in the lane (see nextRank). */
function lowRoom(backend: unknown, owner: unknown, lowSlots: unknown, lowReserved: unknown) {
  const higherActive = sql`EXISTS (SELECT 1 FROM tasks WHERE backend = ${backend}
    AND status IN ('queued', 'running') AND claim_rank < ${sql.lit(LOW_CLAIM_RANK)})`;
  const lowRunning = sql`(SELECT COUNT(*) FROM tasks WHERE backend = ${backend} AND status = 'running'
    AND claim_rank = ${sql.lit(LOW_CLAIM_RANK)} AND lease_owner = ${owner})`;
  return sql`(NOT ${higherActive} OR ${lowRunning} + ${lowReserved} < ${lowSlots})`;
}

/**
 * For a claim of several tasks at once: which ranks have runnable work, and how many low-rank
 * tasks this owner may still start (Infinity when unbounded), read in one statement.
 */
export async function rankRoom(
  db: Kysely<Database>,
  { backend, now, owner, lowRankSlots }: { backend: string; now: number; owner: string; lowRankSlots?: number },
  lowReserved: number,
): Promise<{ ranks: number[]; lowRoom: number }> {
  const runnable = (rank: number) => sql<number>`CASE WHEN ${runnableOf(backend, now, rank)} THEN 1 ELSE 0 END`;
  const { rows } = await sql<{ r0: number; r1: number; r2: number; higher: number; low: number | string }>`
    SELECT ${runnable(0)} AS r0, ${runnable(1)} AS r1, ${runnable(LOW_CLAIM_RANK)} AS r2,
      CASE WHEN EXISTS (SELECT 1 FROM tasks WHERE backend = ${backend} AND status IN ('queued', 'running')
        AND claim_rank < ${sql.lit(LOW_CLAIM_RANK)}) THEN 1 ELSE 0 END AS higher,
      (SELECT COUNT(*) FROM tasks WHERE backend = ${backend} AND status = 'running'
        AND claim_rank = ${sql.lit(LOW_CLAIM_RANK)} AND lease_owner = ${owner}) AS low`.execute(db);
  const row = rows[0];
  const ranks = [row.r0, row.r1, row.r2].flatMap((r, rank) => (Number(r) ? [rank] : []));
  const bounded = lowRankSlots !== undefined && lowRankSlots > 0 && Number(row.higher) === 1;
  const room = bounded ? Math.max(0, lowRankSlots - Number(row.low) - lowReserved) : Number.POSITIVE_INFINITY;
  return { ranks, lowRoom: room };
}
