import type { Task } from './task.ts';

/**
 * The queued tasks of one lane at one moment, reduced to what a position needs: each account's
 * queued ids in order, and the accounts' queue lengths sorted with running sums. Built once per
 * interval and shared by every poll of the lane, so a poll's cost does not grow with the backlog
 * (bench/poll-at-scale: 10k queued tasks, each polled by its own client).
 */
export class QueueSnapshot {
  private readonly idsByAccount = new Map<string, string[]>();
  /** Queue lengths per account, ascending, and `sums[i]` = total of the first i of them. */
  private readonly lengths: number[];
  private readonly sums: number[];

  /** `queued`: the lane's queued tasks, any order. */
  constructor(queued: Iterable<{ accountId: string; id: string }>) {
    for (const { accountId, id } of queued) {
      const ids = this.idsByAccount.get(accountId);
      if (ids) ids.push(id);
      else this.idsByAccount.set(accountId, [id]);
    }
    for (const ids of this.idsByAccount.values()) ids.sort();
    this.lengths = [...this.idsByAccount.values()].map((ids) => ids.length).sort((a, b) => a - b);
    this.sums = [0];
    for (const n of this.lengths) this.sums.push(this.sums[this.sums.length - 1] + n);
  }

  /**
   * Tasks fair claiming would start before this one: it serves accounts in turns, so with `rank`
   * tasks of its own account ahead of it, every other account gets at most `rank` starts first.
   * A task queued after the snapshot counts as behind every task its account had then.
   */
  positionOf(task: Pick<Task, 'accountId' | 'id'>): number {
    const rank = countBelow(this.idsByAccount.get(task.accountId) ?? [], task.id);
    if (rank === 0) return 0;
    // Σ over accounts of min(length, rank); this account contributes exactly `rank` (its length is
    // at least rank), which is the `rank` of its own tasks ahead of this one.
    const shorter = countBelow(this.lengths, rank);
    return this.sums[shorter] + rank * (this.lengths.length - shorter);
  }
}

/** How many entries of the ascending array are less than `value` (binary search). */
function countBelow<T>(sorted: readonly T[], value: T): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
