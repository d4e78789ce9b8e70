import { sql, type Kysely, type Selectable } from 'kysely';
import type { Lease, Task, TaskErrorInfo, TaskResult } from '../../engine/task.ts';
import type { AttemptOutcome, AttemptRecord, ClaimRequest, LaneStats, IdempotencyClaim, NewTask, Reservation, TaskQuery, TaskStore } from '../task-store.ts';
import type { Database, TasksTable } from './schema.ts';
import type { SqlDialectName } from './database.ts';
import { reusableQuery } from './reusable-query.ts';

/** Task store on SQLite or PostgreSQL through the same Kysely statements. */
export class SqlTaskStore implements TaskStore {
  private readonly byId;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: SqlDialectName,
  ) {
    this.byId = reusableQuery<[string]>(db.selectFrom('tasks').selectAll().where('id', '=', ''), 1);
  }

  insert(task: NewTask): Promise<Task> {
    if (!task.idempotencyKey) return this.insertRow(this.db, task);
    return this.db.transaction().execute(async (trx) => {
      const inserted = await this.insertRow(trx, task);
      await trx
        .updateTable('idempotency_keys')
        .set({ task_id: task.id })
        .where('account_id', '=', task.accountId)
        .where('key', '=', task.idempotencyKey!)
        .execute();
      return inserted;
    });
  }

  private async insertRow(db: Kysely<Database>, task: NewTask): Promise<Task> {
    const row = await db
      .insertInto('tasks')
      .values({
        id: task.id, account_id: task.accountId, family: task.family, kind: task.kind, model: task.model,
        backend: task.backend, status: 'queued', progress: 0, params: JSON.stringify(task.params),
        error_code: null, error_message: null, result_key: null, result_bytes: null, result_etag: null,
        attempts: 0, lease_owner: null, lease_token: 0, lease_expires_at: null, available_at: task.createdAt,
        created_at: task.createdAt, started_at: null, finished_at: null, expires_at: null,
        idempotency_key: task.idempotencyKey ?? null, backend_state: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toTask(row);
  }

  async get(id: string): Promise<Task | undefined> {
    const { rows } = await this.db.executeQuery<Selectable<TasksTable>>(this.byId(id));
    return rows[0] ? toTask(rows[0]) : undefined;
  }

  async list(q: TaskQuery): Promise<Task[]> {
    let query = this.db
      .selectFrom('tasks')
      .selectAll()
      .where('account_id', '=', q.accountId)
      .where('family', '=', q.family)
      .orderBy('id', 'desc')
      .limit(q.limit);
    if (q.after) query = query.where('id', '<', q.after);
    if (q.statuses?.length) query = query.where('status', 'in', q.statuses);
    if (q.model) query = query.where('model', '=', q.model);
    if (q.createdAfter !== undefined) query = query.where('created_at', '>', q.createdAfter);
    if (q.idempotencyKey) query = query.where('idempotency_key', '=', q.idempotencyKey);
    return (await query.execute()).map(toTask);
  }

  async reserveIdempotencyKey(claim: IdempotencyClaim, now: number, staleBefore: number): Promise<Reservation> {
    const inserted = await this.db
      .insertInto('idempotency_keys')
      .values({ account_id: claim.accountId, key: claim.key, request_hash: claim.requestHash, task_id: null, created_at: now })
      .onConflict((oc) => oc.columns(['account_id', 'key']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return { kind: 'reserved' };
    const row = await this.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('account_id', '=', claim.accountId)
      .where('key', '=', claim.key)
      .executeTakeFirst();
    if (!row) return this.reserveIdempotencyKey(claim, now, staleBefore);
    if (row.task_id) return { kind: 'existing', taskId: row.task_id, requestHash: row.request_hash };
    if (row.created_at >= staleBefore) return { kind: 'in_flight', requestHash: row.request_hash };
    // The first request died mid-way (its process crashed): whoever updates the stale row first takes it over.
    const takeover = await this.db
      .updateTable('idempotency_keys')
      .set({ request_hash: claim.requestHash, created_at: now })
      .where('account_id', '=', claim.accountId)
      .where('key', '=', claim.key)
      .where('task_id', 'is', null)
      .where('created_at', '=', row.created_at)
      .executeTakeFirst();
    return Number(takeover.numUpdatedRows) === 1 ? { kind: 'reserved' } : { kind: 'in_flight', requestHash: row.request_hash };
  }

  async releaseIdempotencyKey(claim: IdempotencyClaim): Promise<void> {
    await this.db
      .deleteFrom('idempotency_keys')
      .where('account_id', '=', claim.accountId)
      .where('key', '=', claim.key)
      .where('request_hash', '=', claim.requestHash)
      .where('task_id', 'is', null)
      .execute();
  }

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
    let candidate = this.db
      .selectFrom('tasks')
      .select('id')
      .where('status', '=', 'queued')
      .where('backend', '=', backend)
      .where('account_id', '=', accountId)
      .where('available_at', '<=', now)
      .orderBy('available_at')
      .orderBy('id')
      .limit(1);
    // Concurrent claimers on PostgreSQL skip each other's rows instead of queueing on them;
    // SQLite serialises writers, and the outer status check keeps a lost race harmless.
    if (this.dialect === 'postgres') candidate = candidate.forUpdate().skipLocked();
    const row = await this.db
      .updateTable('tasks')
      .set((eb) => ({
        status: 'running',
        lease_owner: owner,
        lease_token: eb('lease_token', '+', 1),
        lease_expires_at: now + leaseMs,
        attempts: eb('attempts', '+', 1),
        started_at: eb.fn.coalesce('started_at', sql.lit(now)),
      }))
      .where('id', '=', candidate)
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

  async endAttempt(lease: Lease, outcome: AttemptOutcome, errorCode: string | null, now: number): Promise<void> {
    await this.db
      .updateTable('task_attempts')
      .set({ ended_at: now, outcome, error_code: errorCode })
      .where('task_id', '=', lease.taskId)
      .where('attempt', '=', lease.token)
      .where('ended_at', 'is', null)
      .execute();
  }

  async attempts(taskId: string): Promise<AttemptRecord[]> {
    const rows = await this.db.selectFrom('task_attempts').selectAll().where('task_id', '=', taskId).orderBy('attempt').execute();
    return rows.map((r) => ({
      taskId: r.task_id, attempt: r.attempt, worker: r.worker, startedAt: r.started_at, endedAt: r.ended_at,
      outcome: r.outcome as AttemptOutcome | null, errorCode: r.error_code,
    }));
  }

  async cancel(taskId: string, now: number): Promise<Task | undefined> {
    const row = await this.db
      .updateTable('tasks')
      .set({
        status: 'canceled', error_code: 'canceled', error_message: 'The task was canceled.', finished_at: now,
        lease_owner: null, lease_expires_at: null,
      })
      .where('id', '=', taskId)
      .where('status', 'in', ['queued', 'running'])
      .returningAll()
      .executeTakeFirst();
    return row ? toTask(row) : undefined;
  }

  async laneStats(): Promise<LaneStats> {
    const [queued, running] = await Promise.all([
      this.db.selectFrom('tasks').select(['backend', (eb) => eb.fn.countAll<number>().as('n')]).where('status', '=', 'queued').groupBy('backend').execute(),
      this.db
        .selectFrom('tasks')
        .select(['backend', 'account_id', (eb) => eb.fn.countAll<number>().as('n')])
        .where('status', '=', 'running')
        .groupBy(['backend', 'account_id'])
        .execute(),
    ]);
    return {
      queued: queued.map((q) => ({ backend: q.backend, count: Number(q.n) })),
      running: running.map((r) => ({ backend: r.backend, accountId: r.account_id, count: Number(r.n) })),
    };
  }

  async queuePosition(task: Task): Promise<number> {
    if (task.status !== 'queued') return 0;
    const queued = await this.db
      .selectFrom('tasks')
      .select(['account_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('backend', '=', task.backend)
      .where('status', '=', 'queued')
      .groupBy('account_id')
      .execute();
    const ahead = await this.db
      .selectFrom('tasks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('backend', '=', task.backend)
      .where('status', '=', 'queued')
      .where('account_id', '=', task.accountId)
      .where('id', '<', task.id)
      .executeTakeFirstOrThrow();
    // Fair claiming serves accounts in turns: before this task, every other account gets at
    // most as many starts as this account has tasks ahead of it.
    const rank = Number(ahead.n);
    return queued.reduce((sum, q) => (q.account_id === task.accountId ? sum : sum + Math.min(Number(q.n), rank)), rank);
  }

  async renew(lease: Lease, leaseMs: number, now: number): Promise<Lease | undefined> {
    const expiresAt = now + leaseMs;
    const updated = await this.guarded(lease, { lease_expires_at: expiresAt });
    return updated ? { ...lease, expiresAt } : undefined;
  }

  reportProgress(lease: Lease, progress: number): Promise<boolean> {
    return this.guarded(lease, { progress: Math.max(0, Math.min(99, Math.floor(progress))) });
  }

  async loadBackendState(taskId: string): Promise<unknown | undefined> {
    const row = await this.db.selectFrom('tasks').select('backend_state').where('id', '=', taskId).executeTakeFirst();
    return row?.backend_state ? JSON.parse(row.backend_state) : undefined;
  }

  saveBackendState(lease: Lease, state: unknown): Promise<boolean> {
    return this.guarded(lease, { backend_state: JSON.stringify(state) });
  }

  complete(lease: Lease, result: TaskResult, now: number, expiresAt: number): Promise<boolean> {
    return this.guarded(lease, {
      status: 'succeeded', progress: 100, error_code: null, error_message: null, result_key: result.blobKey, result_bytes: result.bytes,
      result_etag: result.etag, finished_at: now, expires_at: expiresAt, lease_owner: null, lease_expires_at: null,
    });
  }

  fail(lease: Lease, error: TaskErrorInfo, now: number): Promise<boolean> {
    return this.guarded(lease, {
      status: 'failed', error_code: error.code, error_message: error.message, finished_at: now,
      lease_owner: null, lease_expires_at: null,
    });
  }

  retry(lease: Lease, error: TaskErrorInfo, availableAt: number): Promise<boolean> {
    return this.guarded(lease, {
      status: 'queued', error_code: error.code, error_message: error.message, available_at: availableAt,
      progress: 0, lease_owner: null, lease_expires_at: null,
    });
  }

  async release(lease: Lease, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('tasks')
      .set((eb) => ({ status: 'queued', available_at: now, lease_owner: null, lease_expires_at: null, attempts: eb('attempts', '-', 1) }))
      .where('id', '=', lease.taskId)
      .where('status', '=', 'running')
      .where('lease_owner', '=', lease.owner)
      .where('lease_token', '=', lease.token)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async reclaimExpired(now: number, maxAttempts: number): Promise<number> {
    await this.db
      .updateTable('task_attempts')
      .set({ ended_at: now, outcome: 'lease_expired' })
      .where('ended_at', 'is', null)
      .where('task_id', 'in', (eb) =>
        eb.selectFrom('tasks').select('id').where('status', '=', 'running').where('lease_expires_at', '<', now),
      )
      .execute();
    const exhausted = await this.db
      .updateTable('tasks')
      .set({
        status: 'failed', error_code: 'worker_lost', finished_at: now, lease_owner: null, lease_expires_at: null,
        error_message: 'The task was interrupted too many times and was not retried again.',
      })
      .where('status', '=', 'running')
      .where('lease_expires_at', '<', now)
      .where('attempts', '>=', maxAttempts)
      .executeTakeFirst();
    const requeued = await this.db
      .updateTable('tasks')
      .set({ status: 'queued', lease_owner: null, lease_expires_at: null, available_at: now })
      .where('status', '=', 'running')
      .where('lease_expires_at', '<', now)
      .executeTakeFirst();
    return Number(exhausted.numUpdatedRows) + Number(requeued.numUpdatedRows);
  }

  async expireDue(now: number, limit: number): Promise<Task[]> {
    const due = this.db
      .selectFrom('tasks')
      .select('id')
      .where('status', '=', 'succeeded')
      .where('expires_at', '<=', now)
      .limit(limit);
    // The outer status check makes concurrent sweepers take each task once.
    const rows = await this.db
      .updateTable('tasks')
      .set({ status: 'expired' })
      .where('id', 'in', this.dialect === 'postgres' ? due.forUpdate().skipLocked() : due)
      .where('status', '=', 'succeeded')
      .returningAll()
      .execute();
    return rows.map(toTask);
  }

  /** One statement that only changes the row while this lease still holds it. */
  private async guarded(lease: Lease, values: Partial<Selectable<TasksTable>>): Promise<boolean> {
    const result = await this.db
      .updateTable('tasks')
      .set(values)
      .where('id', '=', lease.taskId)
      .where('status', '=', 'running')
      .where('lease_owner', '=', lease.owner)
      .where('lease_token', '=', lease.token)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}

function toTask(row: Selectable<TasksTable>): Task {
  return {
    id: row.id,
    accountId: row.account_id,
    family: row.family as Task['family'],
    kind: row.kind as Task['kind'],
    model: row.model,
    backend: row.backend,
    status: row.status as Task['status'],
    progress: row.progress,
    params: JSON.parse(row.params),
    error: row.error_code ? { code: row.error_code, message: row.error_message ?? '' } : null,
    result: row.result_key ? { blobKey: row.result_key, bytes: row.result_bytes ?? 0, etag: row.result_etag ?? '' } : null,
    attempts: row.attempts,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    expiresAt: row.expires_at,
    idempotencyKey: row.idempotency_key,
  };
}
