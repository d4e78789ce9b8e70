import { sql, type Kysely } from 'kysely';
import type { Lease, Task } from '../../engine/task.ts';
import type { ClaimRequest } from '../task-store.ts';
import type { Database } from './schema.ts';
import type { SqlDialect } from './sql-dialect.ts';
import { toTask } from './task-row.ts';
import { QueueSnapshot } from '../../engine/queue-snapshot.ts';

/**
 * Fair claiming within a lane (DESIGN: no account starves another): the account with the
 * fewest running tasks goes first, the one waiting longest among equals, oldest task first
 * within an account; a per-account cap holds back accounts at their limit.
 */
export class FairClaim {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: SqlDialect,
  ) {}

  async claim(request: ClaimRequest): Promise<{ task: Task; lease: Lease } | undefined> {
    for (const accountId of await this.fairOrder(request)) {
      const claimed = await this.claimOldestOf(request, accountId);
      if (claimed) return claimed;
    }
    return undefined;
  }

  /** Accounts with runnable work in the lane, in the order fair claiming serves them. */
  private async fairOrder({ backend, now, maxRunningPerAccount }: ClaimRequest): Promise<string[]> {
    const [waiting, running] = await Promise.all([this.waitingAccounts(backend, now), this.runningPerAccount(backend)]);
    return waiting
      .map((w) => ({ id: w.account_id, since: Number(w.since), running: running.get(w.account_id) ?? 0 }))
      .filter((a) => maxRunningPerAccount <= 0 || a.running < maxRunningPerAccount)
      .sort((a, b) => a.running - b.running || a.since - b.since)
      .map((a) => a.id);
  }

  /**
   * Each account with runnable queued tasks in the lane and its oldest one. A recursive
   * skip-scan over the (backend, status, account_id, available_at) index: one probe per
   * account instead of a pass over the whole backlog (a GROUP BY read every queued row and
   * made a claim cost grow with the queue).
   */
  private async waitingAccounts(backend: string, now: number): Promise<Array<{ account_id: string; since: number }>> {
    const queued = sql`backend = ${backend} AND status = 'queued'`;
    const result = await sql<{ account_id: string; since: number | null }>`
      WITH RECURSIVE accounts(account_id) AS (
        SELECT MIN(account_id) FROM tasks WHERE ${queued}
        UNION ALL
        SELECT (SELECT MIN(account_id) FROM tasks WHERE ${queued} AND account_id > accounts.account_id)
        FROM accounts WHERE accounts.account_id IS NOT NULL
      )
      SELECT account_id, (SELECT MIN(available_at) FROM tasks WHERE ${queued} AND tasks.account_id = accounts.account_id AND available_at <= ${now}) AS since
      FROM accounts WHERE account_id IS NOT NULL`.execute(this.db);
    return result.rows.filter((r): r is { account_id: string; since: number } => r.since !== null);
  }

  private async runningPerAccount(backend: string): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom('tasks')
      .select(['account_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('backend', '=', backend)
      .where('status', '=', 'running')
      .groupBy('account_id')
      .execute();
    return new Map(rows.map((r) => [r.account_id, Number(r.n)]));
  }

  private async claimOldestOf({ owner, backend, leaseMs, now }: ClaimRequest, accountId: string) {
    const candidate = this.db
      .selectFrom('tasks')
      .select('id')
      .where('status', '=', 'queued')
      .where('backend', '=', backend)
      .where('account_id', '=', accountId)
      .where('available_at', '<=', now)
      .orderBy('available_at')
      .orderBy('id')
      .limit(1);
    const row = await this.db
      .updateTable('tasks')
      .set((eb) => ({
        status: 'running',
        lease_owner: owner,
        lease_token: eb('lease_token', '+', 1),
        lease_expires_at: now + leaseMs,
        attempts: eb('attempts', '+', 1),
        started_at: eb.fn.coalesce('started_at', eb.val(now)),
      }))
      .where('id', '=', this.dialect.lockForTaking(candidate))
      .where('status', '=', 'queued')
      .returningAll()
      .executeTakeFirst();
    if (!row) return undefined;
    await this.db
      .insertInto('task_attempts')
      .values({ task_id: row.id, attempt: row.lease_token, worker: owner, started_at: now, ended_at: null, outcome: null, error_code: null })
      .execute();
    const task = toTask(row);
    return { task, lease: { taskId: task.id, owner, token: row.lease_token, expiresAt: now + leaseMs } };
  }

  /** The lane's queued tasks, in one read of the (backend, status, account_id, …) index. */
  async queueSnapshot(backend: string): Promise<QueueSnapshot> {
    const rows = await this.db
      .selectFrom('tasks')
      .select(['account_id', 'id'])
      .where('backend', '=', backend)
      .where('status', '=', 'queued')
      .execute();
    return new QueueSnapshot(rows.map((r) => ({ accountId: r.account_id, id: r.id })));
  }
}
