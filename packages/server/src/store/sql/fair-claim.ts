import { sql, type Expression, type Kysely, type QueryCreator, type Selectable } from 'kysely';
import type { Claimed, ClaimRequest } from '../task-store.ts';
import type { Task } from '../../domain/task.ts';
import type { Lease } from '../../domain/lease.ts';
import type { Database, TasksTable } from './schema.ts';
import { reusableStatement } from './reusable-query.ts';
import type { SqlDialect } from './sql-dialect.ts';
import { TASK_COLUMNS, toTask } from './task-row.ts';
import { QueueSnapshot } from '../../domain/queue-snapshot.ts';
import { nextRevision } from './task-revision.ts';
import { LOW_CLAIM_RANK } from '../../domain/task.ts';
import { nextRank, rankRoom } from './claim-rank.ts';

/**
 * Claiming within a lane: by claim rank first (the service tier, claim-rank.ts), then fairly within
 * the rank (no account starves another: docs/architecture.md, "Task life"): the account with the
 * fewest running tasks goes first, the one waiting longest among equals, oldest task first
 * within an account; a per-account cap holds back accounts at their limit.
 */
export class FairClaim {
  /** Starts the oldest runnable task of one account in the lane (built once: it runs for every task). */
  private readonly startOldest;
  /**
   * Starts the oldest runnable task of the account fair order serves first: a claim of one task
   * (every completion claims its slot's next) in one statement instead of reading the order first.
   */
  private readonly startFairest;
  /** The attempt's row, written with its start. */
  private readonly attemptRow;
  /**
   * The task each lease handed out here was claimed as: its completion (given the same lease
   * object back) lets effects compute what they set from it (TransitionEffects.completedColumns).
   * Weak: a lease dropped with its attempt takes its task along.
   */
  readonly claimedTasks = new WeakMap<Lease, Task>();
  /**
   * Claims under way per owner and lane. The share's count of running low-rank tasks is read by
   * each claim in its own snapshot, so two claims of one process at once (a slot's completion and
   * an idle slot woken by a submit) both saw room for one batch line and started two. Each claim
   * now counts the others under way as holding a low-rank slot already: at worst a batch line
   * waits for the next claim, never one more than the share.
   */
  private readonly underWay = new Map<string, number>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: SqlDialect,
  ) {
    type Start = 'owner' | 'expiresAt' | 'now' | 'backend';
    /** Where the statement begins: the database, or a WITH clause the statement's parts read. */
    type From = QueryCreator<Database>;
    const start = (slot: (name: Start) => never, account: Expression<string>, rank: Expression<number>, from: From) => {
      const candidate = db
        .selectFrom('tasks')
        .select('id')
        .where('status', '=', 'queued')
        .where('backend', '=', slot('backend'))
        .where('claim_rank', '=', rank)
        .where('account_id', '=', account)
        .where('available_at', '<=', slot('now'))
        .orderBy('available_at')
        .orderBy('id')
        .limit(1);
      return (
        from
          .updateTable('tasks')
          .set((eb) => ({
            status: 'running',
            lease_owner: slot('owner'),
            lease_token: eb('lease_token', '+', 1),
            lease_expires_at: slot('expiresAt'),
            attempts: eb('attempts', '+', 1),
            started_at: eb.fn.coalesce('started_at', eb.val(slot('now'))),
            revision: nextRevision(eb),
          }))
          .where('id', '=', dialect.lockForTaking(candidate))
          .where('status', '=', 'queued')
          // The claim is where the trace a task was submitted in is picked up (docs/observability.md).
          .returning([...TASK_COLUMNS, 'trace_context'])
      );
    };
    const startWithAttempt = (
      slot: (name: Start) => never,
      account: Expression<string>,
      rank: Expression<number>,
      from: From = db,
    ) => {
      if (!dialect.writesInWith) return start(slot, account, rank, from);
      // The attempt's row is written by the same statement, from the started row.
      return from
        .with('started', () => start(slot, account, rank, db))
        .with('attempt', (qb) =>
          qb
            .insertInto('task_attempts')
            .columns(['task_id', 'attempt', 'worker', 'started_at'])
            .expression((eb) =>
              eb
                .selectFrom('started')
                .select([
                  'started.id',
                  'started.lease_token',
                  sql<string>`cast(${slot('owner')} as varchar)`.as('worker'),
                  sql<number>`cast(${slot('now')} as bigint)`.as('started_at'),
                ]),
            ),
        )
        .selectFrom('started')
        .selectAll();
    };
    this.startOldest = reusableStatement<Start | 'accountId' | 'rank', Selectable<TasksTable>>((slot) =>
      startWithAttempt(slot, slot('accountId'), slot('rank')),
    );
    this.startFairest = reusableStatement<Start | 'cap' | 'lowSlots' | 'lowReserved', Selectable<TasksTable>>(
      (slot) => {
        // The rank served next, then the first account of fairOrder within it: fewest running,
        // longest waiting, then the account id (the order the skip-scan finds them in, which
        // fairOrder's stable sort keeps among equals). The rank is worked out once, in a WITH clause
        // the other parts read: written inline in each of them, its probes ran and were planned once
        // per use (docs/batch.md, "What a queued batch cost a claim").
        const rank = sql<number>`(SELECT rank FROM next_rank)`;
        const fairest = sql<string>`(${laneAccounts(slot('backend'), slot('now'), rank)}
        SELECT account_id FROM waiting
        WHERE since IS NOT NULL AND (${slot('cap')} <= 0 OR running < ${slot('cap')})
        ORDER BY running, since, account_id LIMIT 1)`;
        const ranked = db.with(
          (cte) => cte('next_rank').materialized(),
          (qc) =>
            qc.selectNoFrom(
              nextRank(slot('backend'), slot('now'), slot('owner'), slot('lowSlots'), slot('lowReserved')).as('rank'),
            ),
        );
        return startWithAttempt(slot, fairest, rank, ranked as unknown as From);
      },
    );
    this.attemptRow = reusableStatement<'taskId' | 'attempt' | 'worker' | 'now'>((slot) =>
      db.insertInto('task_attempts').values({
        task_id: slot('taskId'),
        attempt: slot('attempt'),
        worker: slot('worker'),
        started_at: slot('now'),
        ended_at: null,
        outcome: null,
        error_code: null,
      }),
    );
  }

  /** Runs a claim (or a completion that claims next) counted as under way until it has committed. */
  async counted<T>({ owner, backend }: ClaimRequest, run: () => Promise<T>): Promise<T> {
    const key = `${owner}\u0000${backend}`;
    this.underWay.set(key, (this.underWay.get(key) ?? 0) + 1);
    try {
      return await run();
    } finally {
      const left = (this.underWay.get(key) ?? 1) - 1;
      if (left > 0) this.underWay.set(key, left);
      else this.underWay.delete(key);
    }
  }

  /** Claims of the owner in the lane under way besides the one asking. */
  private othersUnderWay({ owner, backend }: ClaimRequest): number {
    return Math.max(0, (this.underWay.get(`${owner}\u0000${backend}`) ?? 1) - 1);
  }

  claim(request: ClaimRequest): Promise<Claimed | undefined> {
    return this.counted(request, () => this.claimCounted(request));
  }

  /** `claim` inside a `counted` the caller holds (a completion that claims next). */
  async claimCounted(request: ClaimRequest): Promise<Claimed | undefined> {
    // Where the start writes its attempt row itself it is the whole claim: no transaction needed
    // around it (two round trips fewer), unless it started nothing and the general path must look.
    if (this.dialect.statementsAreRoundTrips && this.dialect.writesInWith) {
      const got = await this.claimFairest(this.db, request);
      if (got) return got;
    }
    return (await this.claimSeveralUncounted(request, 1))[0];
  }

  /**
   * Up to `max` tasks of the lane in one transaction, with their attempt rows: a crash leaves
   * both or neither. The fair order is read once and then played out as successive single claims
   * would: each start counts as a running task of its account, which moves it behind the others
   * with as many running (round robin) and toward the per-account cap.
   */
  claimSeveral(request: ClaimRequest, max: number): Promise<Claimed[]> {
    return this.counted(request, () => this.claimSeveralUncounted(request, max));
  }

  private claimSeveralUncounted(request: ClaimRequest, max: number): Promise<Claimed[]> {
    return this.dialect.writeTransaction(this.db, (trx) => this.claimSeveralIn(trx, request, max));
  }

  /** `claimSeveral` inside a transaction the caller holds (one that has written, or took the write lock). */
  async claimSeveralIn(trx: Kysely<Database>, request: ClaimRequest, max: number): Promise<Claimed[]> {
    if (max === 1) {
      const got = await this.claimFairest(trx, request);
      // Nothing started: the lane is empty, or the fairest account's task was just taken by another
      // worker (skipped, locked); the general path below tells which and tries the next accounts.
      if (got) return [got];
    }
    const { ranks, lowRoom } = await rankRoom(trx, request, this.othersUnderWay(request));
    const claimed: Claimed[] = [];
    for (const rank of ranks) {
      const room = max - claimed.length;
      const want = rank === LOW_CLAIM_RANK ? Math.min(room, lowRoom) : room;
      if (want > 0) claimed.push(...(await this.claimInRank(trx, request, rank, want)));
    }
    return claimed;
  }

  /**
   * Up to `max` tasks of one rank, in fair order. The order is read once and then played out as
   * successive single claims would: each start counts as a running task of its account, which moves
   * it behind the others with as many running (round robin) and toward the per-account cap.
   */
  private async claimInRank(trx: Kysely<Database>, request: ClaimRequest, rank: number, max: number) {
    const accounts = await this.fairOrder(trx, request, rank);
    const claimed: Claimed[] = [];
    let turn = 0;
    while (claimed.length < max && accounts.length > 0) {
      accounts.sort((a, b) => a.running - b.running || a.turn - b.turn);
      const next = accounts[0];
      const got = await this.claimOldestOf(trx, request, next.id, rank);
      if (!got || (request.maxRunningPerAccount > 0 && next.running + 1 >= request.maxRunningPerAccount))
        accounts.shift();
      if (!got) continue;
      claimed.push(got);
      next.running++;
      // Served now: behind every account with as many running (ties go to the longest waiting, as the query ordered
      // them).
      next.turn = accounts.length + ++turn;
    }
    return claimed;
  }

  /** Accounts with runnable work of the rank in the lane, in the order fair claiming serves them. */
  private async fairOrder(db: Kysely<Database>, { backend, now, maxRunningPerAccount }: ClaimRequest, rank: number) {
    return (await this.waitingAccounts(db, backend, now, rank))
      .map((w) => ({ id: w.account_id, since: Number(w.since), running: Number(w.running) }))
      .filter((a) => maxRunningPerAccount <= 0 || a.running < maxRunningPerAccount)
      .sort((a, b) => a.running - b.running || a.since - b.since)
      .map((a, turn) => ({ id: a.id, running: a.running, turn: turn - 1_000_000_000 }));
  }

  /**
   * Each account with runnable queued tasks of the rank in the lane, its oldest one and how many it
   * runs in the lane (laneAccounts).
   */
  private async waitingAccounts(db: Kysely<Database>, backend: string, now: number, rank: number) {
    const result = await sql<{ account_id: string; since: number | null; running: number | string }>`
      ${laneAccounts(backend, now, sql.lit(rank))} SELECT account_id, since, running FROM waiting`.execute(db);
    return result.rows.filter((r) => r.since !== null);
  }

  private async claimOldestOf(
    db: Kysely<Database>,
    { owner, backend, leaseMs, now }: ClaimRequest,
    accountId: string,
    rank: number,
  ): Promise<Claimed | undefined> {
    const statement = this.startOldest({ owner, expiresAt: now + leaseMs, now, backend, accountId, rank });
    return this.started(db, owner, now, leaseMs, (await db.executeQuery(statement)).rows[0]);
  }

  private async claimFairest(db: Kysely<Database>, request: ClaimRequest): Promise<Claimed | undefined> {
    const { owner, backend, leaseMs, now, maxRunningPerAccount, lowRankSlots } = request;
    const statement = this.startFairest({
      owner,
      expiresAt: now + leaseMs,
      now,
      backend,
      cap: maxRunningPerAccount,
      lowSlots: lowRankSlots ?? 0,
      lowReserved: this.othersUnderWay(request),
    });
    return this.started(db, owner, now, leaseMs, (await db.executeQuery(statement)).rows[0]);
  }

  /** A started row as a claim, with its attempt row written (by the start itself where the dialect can). */
  private async started(
    db: Kysely<Database>,
    owner: string,
    now: number,
    leaseMs: number,
    row: Selectable<TasksTable> | undefined,
  ): Promise<Claimed | undefined> {
    if (!row) return undefined;
    if (!this.dialect.writesInWith)
      await db.executeQuery(this.attemptRow({ taskId: row.id, attempt: row.lease_token, worker: owner, now }));
    const task = toTask(row);
    const lease = { id: task.id, owner, token: row.lease_token, expiresAt: now + leaseMs };
    this.claimedTasks.set(lease, task);
    return { task, lease, traceContext: row.trace_context };
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

/**
 * \`WITH\` clauses naming \`waiting\`: each account with queued tasks of the rank in the lane, with the time its
 * oldest runnable one became available (\`since\`, null when none is runnable yet) and how many it
 * runs in the lane. A recursive skip-scan over the (backend, status, claim_rank, account_id, available_at)
 * index: one probe per account instead of a pass over the whole backlog (a GROUP BY read every
 * queued row and made a claim cost grow with the queue). The running counts are probes of the
 * same index in the same statement: a separate GROUP BY over the running tasks was one more
 * statement per claim (bench/engine.bench.ts).
 */
function laneAccounts(backend: unknown, now: unknown, rank: unknown) {
  const queued = sql`backend = ${backend} AND status = 'queued' AND claim_rank = ${rank}`;
  return sql`WITH RECURSIVE accounts(account_id) AS (
      SELECT MIN(account_id) FROM tasks WHERE ${queued}
      UNION ALL
      SELECT (SELECT MIN(account_id) FROM tasks WHERE ${queued} AND account_id > accounts.account_id)
      FROM accounts WHERE accounts.account_id IS NOT NULL
    ), waiting AS (
      SELECT account_id,
        (SELECT MIN(available_at) FROM tasks
          WHERE ${queued} AND tasks.account_id = accounts.account_id AND available_at <= ${now}) AS since,
        (SELECT COUNT(*) FROM tasks
          WHERE backend = ${backend} AND status = 'running' AND tasks.account_id = accounts.account_id) AS running
      FROM accounts WHERE account_id IS NOT NULL
    )`;
}
