import type { ExpressionBuilder, Kysely, Selectable } from 'kysely';
import type { Task, TaskErrorInfo, TaskResult, TaskStatus } from '../../domain/task.ts';
import { claimRankOf } from '../../domain/task.ts';
import type { Lease } from '../../domain/lease.ts';
import { heldBy as leaseFence, leasedBy } from './lease-fence.ts';
import type {
  AttemptOutcome,
  AttemptRecord,
  Claimed,
  ClaimRequest,
  LaneStats,
  IdempotencyClaim,
  NewTask,
  Reservation,
  TaskQuery,
  TaskStore,
} from '../task-store.ts';
import type { Database, TasksTable } from './schema.ts';
import type { SqlDialect } from './sql-dialect.ts';
import { TASK_COLUMNS, toTask, type TaskRow } from './task-row.ts';
import { FairClaim } from './fair-claim.ts';
import type { QueueSnapshot } from '../../domain/queue-snapshot.ts';
import { FAILURES } from '../../domain/task-failure.ts';
import { IdempotencyKeys } from './idempotency-keys.ts';
import type { TransitionEffects } from './transition-effects.ts';
import { IdempotencyKeyTaken } from '../task-store.ts';
import {
  completionStatements,
  planEffects,
  returningFinished,
  type EffectPlan,
  type ReturningTasks,
} from './completion-statements.ts';
import { uuidv7Floor } from '../../domain/ids.ts';
import { nextRevision } from './task-revision.ts';

/** How much later than its id's time an older version could record a task's created_at. */
const CREATED_AT_SLACK_MS = 10 * 60_000;

type TaskUpdate = Partial<Selectable<TasksTable>>;
/** Column values, or expressions over the row (e.g. `attempts - 1`). */
type TaskChange =
  | TaskUpdate
  | ((eb: ExpressionBuilder<Database, 'tasks'>) => Partial<Record<keyof TaskUpdate, unknown>>);

/** A running task's lease fence: every write a worker makes after its claim carries it. */
const heldBy = (lease: Lease) => leaseFence(lease, 'tasks');

/** Task store on SQLite or PostgreSQL through the same Kysely statements. */
export class SqlTaskStore implements TaskStore {
  private readonly readById: (id: string) => Promise<TaskRow | undefined>;
  private readonly fair: FairClaim;
  private readonly idempotency: IdempotencyKeys;
  /** The statements that end an attempt (completion-statements.ts). */
  private readonly ending: ReturnType<typeof completionStatements>;
  private readonly plan: EffectPlan;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: SqlDialect,
    /** Ledger, outbox: written in the same transaction as the task changes they follow. */
    private readonly effects: readonly TransitionEffects[] = [],
  ) {
    this.plan = planEffects(effects);
    this.fair = new FairClaim(db, dialect);
    this.idempotency = new IdempotencyKeys(db);
    // Every poll reads one task: it takes the dialect's fastest path (on SQLite a prepared
    // statement called directly, see bench/poll.bench.ts).
    this.readById = dialect.readOne<TaskRow, [string]>(
      db.selectFrom('tasks').select(TASK_COLUMNS).where('id', '=', ''),
      1,
    );
    this.ending = completionStatements(db, dialect, this.plan);
  }

  insert(task: NewTask): Promise<Task> {
    const created = this.effects.filter((e) => e.created);
    if (!task.idempotencyKey && created.length === 0) return this.insertRow(this.db, task);
    return this.db.transaction().execute(async (trx) => {
      const inserted = await this.insertRow(trx, task);
      if (task.idempotencyKey) {
        // At most one task per key, even when a retry took over a reservation that went stale.
        const bound = await trx
          .updateTable('idempotency_keys')
          .set({ task_id: task.id })
          .where('account_id', '=', task.accountId)
          .where('key', '=', task.idempotencyKey)
          .where('task_id', 'is', null)
          .executeTakeFirst();
        if (Number(bound.numUpdatedRows) !== 1)
          throw new IdempotencyKeyTaken('the Idempotency-Key is bound to another task');
      }
      for (const effect of created) await effect.created!(trx, inserted, task);
      return inserted;
    });
  }

  private async insertRow(db: Kysely<Database>, task: NewTask): Promise<Task> {
    const row = await db
      .insertInto('tasks')
      .values({
        id: task.id,
        account_id: task.accountId,
        family: task.family,
        kind: task.kind,
        model: task.model,
        backend: task.backend,
        status: 'queued',
        progress: 0,
        params: JSON.stringify(task.params),
        error_code: null,
        error_message: null,
        result_key: null,
        result_bytes: null,
        result_etag: null,
        result_duration_ms: null,
        attempts: 0,
        lease_owner: null,
        lease_token: 0,
        lease_expires_at: null,
        available_at: task.createdAt,
        created_at: task.createdAt,
        started_at: null,
        finished_at: null,
        expires_at: null,
        idempotency_key: task.idempotencyKey ?? null,
        backend_state: null,
        cost_usd_ticks: null,
        upstream_cost_usd_ticks: null,
        api_key_id: task.keyId ?? null,
        trace_context: task.traceContext ?? null,
        service_tier: task.serviceTier ?? 'default',
        claim_rank: claimRankOf(task.serviceTier ?? 'default'),
        batch_id: task.batchId ?? null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toTask(row);
  }

  async get(id: string): Promise<Task | undefined> {
    const row = await this.readById(id);
    return row ? toTask(row) : undefined;
  }

  async revisions(ids: readonly string[]): Promise<Map<string, number>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.selectFrom('tasks').select(['id', 'revision']).where('id', 'in', ids).execute();
    return new Map(rows.map((row) => [row.id, Number(row.revision)]));
  }

  /**
   * One page, newest first. Each state is read on its own through the (account, family, status, id)
   * index and the pages merged: a single `status IN (…)` query would have to sort every match of
   * the account before the limit applies, so a page costs at most limit rows per state.
   */
  async list(q: TaskQuery): Promise<Task[]> {
    const statuses = q.statuses?.length ? [...new Set(q.statuses)] : [undefined];
    const pages = await Promise.all(statuses.map((status) => this.listQuery(q, status).execute()));
    const rows =
      pages.length === 1
        ? pages[0]
        : pages
            .flat()
            .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) * (q.order === 'asc' ? -1 : 1))
            .slice(0, q.limit);
    return rows.map(toTask);
  }

  private listQuery(q: TaskQuery, status: TaskStatus | undefined) {
    let query = this.db
      .selectFrom('tasks')
      .selectAll()
      .where('account_id', '=', q.accountId)
      .orderBy('id', q.order ?? 'desc')
      .limit(q.limit);
    if (q.family !== undefined) query = query.where('family', '=', q.family);
    if (q.after) query = query.where('id', q.order === 'asc' ? '>' : '<', q.after);
    if (status) query = query.where('status', '=', status);
    if (q.model) query = query.where('model', '=', q.model);
    if (q.createdAfter !== undefined) {
      // Ids are time-ordered (uuidv7) and a task's id carries its creation time, so a lower bound
      // on the id lets the scan stop at the window's start instead of reading every older task.
      // Tasks written by earlier versions took created_at a little after their id (after fetching
      // inputs): the slack keeps them in.
      query = query
        .where('created_at', '>', q.createdAfter)
        .where('id', '>=', uuidv7Floor(q.createdAfter + 1 - CREATED_AT_SLACK_MS));
    }
    if (q.idempotencyKey) query = query.where('idempotency_key', '=', q.idempotencyKey);
    return query;
  }

  reserveIdempotencyKey(claim: IdempotencyClaim, now: number, staleBefore: number): Promise<Reservation> {
    return this.idempotency.reserve(claim, now, staleBefore);
  }
  renewIdempotencyKey(claim: IdempotencyClaim, now: number): Promise<void> {
    return this.idempotency.renew(claim, now);
  }

  releaseIdempotencyKey(claim: IdempotencyClaim): Promise<void> {
    return this.idempotency.release(claim);
  }

  claim(request: ClaimRequest): Promise<Claimed | undefined> {
    return this.fair.claim(request);
  }

  claimSeveral(request: ClaimRequest, max: number): Promise<Claimed[]> {
    return this.fair.claimSeveral(request, max);
  }

  async endAttempt(lease: Lease, outcome: AttemptOutcome, errorCode: string | null, now: number): Promise<void> {
    await this.endAttemptIn(this.db, lease, outcome, errorCode, now);
  }

  private async endAttemptIn(
    db: Kysely<Database>,
    lease: Lease,
    outcome: AttemptOutcome,
    errorCode: string | null,
    now: number,
  ): Promise<void> {
    await db.executeQuery(
      this.ending.endAttempt({ now, outcome, code: errorCode, taskId: lease.id, attempt: lease.token }),
    );
  }

  async attempts(taskId: string): Promise<AttemptRecord[]> {
    const rows = await this.db
      .selectFrom('task_attempts')
      .selectAll()
      .where('task_id', '=', taskId)
      .orderBy('attempt')
      .execute();
    return rows.map((r) => ({
      taskId: r.task_id,
      attempt: r.attempt,
      worker: r.worker,
      startedAt: r.started_at,
      endedAt: r.ended_at,
      outcome: r.outcome as AttemptOutcome | null,
      errorCode: r.error_code,
    }));
  }

  async cancel(taskId: string, now: number, onlyQueued = false): Promise<Task | undefined> {
    const canceled = FAILURES.canceled();
    const [task] = await this.finishing((db) =>
      db
        .updateTable('tasks')
        .set((eb) => ({
          status: 'canceled',
          error_code: canceled.code,
          error_message: canceled.message,
          finished_at: now,
          lease_owner: null,
          lease_expires_at: null,
          revision: nextRevision(eb),
        }))
        .where('id', '=', taskId)
        .where('status', 'in', onlyQueued ? ['queued'] : ['queued', 'running'])
        .$call((qb) => this.returningFinished(qb.returningAll()))
        .execute(),
    );
    return task;
  }

  async laneStats(): Promise<LaneStats> {
    const [queued, running] = await Promise.all([
      this.db
        .selectFrom('tasks')
        .select(['backend', (eb) => eb.fn.countAll<number>().as('n')])
        .where('status', '=', 'queued')
        .groupBy('backend')
        .execute(),
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

  queueSnapshot(backend: string): Promise<QueueSnapshot> {
    return this.fair.queueSnapshot(backend);
  }

  async renew(lease: Lease, leaseMs: number, now: number): Promise<Lease | undefined> {
    const expiresAt = now + leaseMs;
    const updated = await this.guarded(lease, { lease_expires_at: expiresAt });
    return updated ? { ...lease, expiresAt } : undefined;
  }

  reportProgress(lease: Lease, progress: number): Promise<boolean> {
    // 100 while running means rendered and being delivered to the caller's storage (docs/storage.md).
    const percent = Math.max(0, Math.min(100, Math.floor(progress)));
    return this.guarded(lease, (eb) => ({ progress: percent, revision: nextRevision(eb) }));
  }

  async loadBackendState(taskId: string): Promise<unknown | undefined> {
    const row = await this.db.selectFrom('tasks').select('backend_state').where('id', '=', taskId).executeTakeFirst();
    return row?.backend_state ? JSON.parse(row.backend_state) : undefined;
  }

  saveBackendState(lease: Lease, state: unknown): Promise<boolean> {
    return this.guarded(lease, { backend_state: JSON.stringify(state) });
  }

  async complete(lease: Lease, result: TaskResult, now: number, expiresAt: number): Promise<boolean> {
    if (await this.completedAlone(lease, result, now, expiresAt)) return true;
    return (
      await this.guardedFinish(
        lease,
        now,
        null,
        this.completing(lease, result, now, expiresAt),
        this.dialect.writesInWith,
      )
    ).completed;
  }

  async completeAndClaim(
    lease: Lease,
    result: TaskResult,
    now: number,
    expiresAt: number,
    next: ClaimRequest,
  ): Promise<{ completed: boolean; next?: Claimed }> {
    return this.fair.counted(next, () => this.completeThenClaim(lease, result, now, expiresAt, next));
  }

  private async completeThenClaim(
    lease: Lease,
    result: TaskResult,
    now: number,
    expiresAt: number,
    next: ClaimRequest,
  ): Promise<{ completed: boolean; next?: Claimed }> {
    // Committed alone, the next claim is a statement of its own: two round trips instead of a
    // transaction's four. A crash between them leaves the next task queued, for any worker.
    if (await this.completedAlone(lease, result, now, expiresAt))
      return { completed: true, next: await this.fair.claimCounted(next) };
    return this.guardedFinish(
      lease,
      now,
      null,
      this.completing(lease, result, now, expiresAt),
      this.dialect.writesInWith,
      next,
    );
  }

  /**
   * The completion as one statement without a transaction, where that saves round trips and the
   * effects have nothing to write for it (TransitionEffects.idleOnCompletion). False when it did not
   * apply: an effect had work, the lease was lost, or the store does not know the claimed task
   * (completedColumns need it); the caller then completes in a transaction, which tells which.
   */
  private async completedAlone(lease: Lease, result: TaskResult, now: number, expiresAt: number): Promise<boolean> {
    if (!this.ending.completeAlone || (this.plan.completers.length > 0 && !this.fair.claimedTasks.has(lease)))
      return false;
    const [row] = (
      await this.db.executeQuery(this.ending.completeAlone(this.completionValues(lease, result, now, expiresAt)))
    ).rows;
    return row !== undefined;
  }

  private completing(lease: Lease, result: TaskResult, now: number, expiresAt: number) {
    const values = this.completionValues(lease, result, now, expiresAt);
    return async (trx: Kysely<Database>) => (await trx.executeQuery(this.ending.complete(values))).rows[0];
  }

  private completionValues(lease: Lease, result: TaskResult, now: number, expiresAt: number) {
    const values: Record<string, unknown> = {
      key: result.blobKey,
      bytes: result.bytes,
      etag: result.etag,
      durationMs: result.durationSeconds === undefined ? null : Math.round(result.durationSeconds * 1000),
      now,
      expiresAt,
      upstreamCost: result.upstreamCostUsdTicks ?? null,
      delivery: result.delivery ? JSON.stringify(result.delivery) : null,
      taskId: lease.id,
      owner: lease.owner,
      token: lease.token,
    };
    const claimed = this.fair.claimedTasks.get(lease);
    const completedTask: Task | undefined = claimed && {
      ...claimed,
      status: 'succeeded',
      progress: 100,
      result,
      finishedAt: now,
      expiresAt,
    };
    for (const [i, c] of this.plan.completers.entries())
      values[`fx${i}`] = completedTask ? (c.value(completedTask) ?? null) : null;
    return values;
  }

  async fail(lease: Lease, error: TaskErrorInfo, now: number): Promise<boolean> {
    const values = {
      status: 'failed',
      error_code: error.code,
      error_message: error.message,
      finished_at: now,
      lease_owner: null,
      lease_expires_at: null,
    };
    const failing = (trx: Kysely<Database>) =>
      this.returningFinished(
        trx
          .updateTable('tasks')
          .set((eb) => ({ ...values, revision: nextRevision(eb) }))
          .where(heldBy(lease))
          .returningAll(),
      ).executeTakeFirst();
    return (await this.guardedFinish(lease, now, error.code, failing, false)).completed;
  }

  retry(lease: Lease, error: TaskErrorInfo, availableAt: number): Promise<boolean> {
    return this.guarded(lease, (eb) => ({
      status: 'queued',
      error_code: error.code,
      error_message: error.message,
      available_at: availableAt,
      progress: 0,
      lease_owner: null,
      lease_expires_at: null,
      revision: nextRevision(eb),
    }));
  }

  release(lease: Lease, now: number): Promise<boolean> {
    return this.guarded(lease, (eb) => ({
      status: 'queued',
      available_at: now,
      lease_owner: null,
      lease_expires_at: null,
      attempts: eb('attempts', '-', 1),
      revision: nextRevision(eb),
    }));
  }

  async leasedBy(owner: string): Promise<string[]> {
    return leasedBy(this.db, 'tasks', owner);
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
    const lost = FAILURES.workerLost();
    const exhausted = await this.finishing((db) =>
      db
        .updateTable('tasks')
        .set((eb) => ({
          status: 'failed',
          error_code: lost.code,
          finished_at: now,
          lease_owner: null,
          lease_expires_at: null,
          error_message: lost.message,
          revision: nextRevision(eb),
        }))
        .where('status', '=', 'running')
        .where('lease_expires_at', '<', now)
        .where('attempts', '>=', maxAttempts)
        .$call((qb) => this.returningFinished(qb.returningAll()))
        .execute(),
    );
    const requeued = await this.db
      .updateTable('tasks')
      .set((eb) => ({
        status: 'queued',
        lease_owner: null,
        lease_expires_at: null,
        available_at: now,
        revision: nextRevision(eb),
      }))
      .where('status', '=', 'running')
      .where('lease_expires_at', '<', now)
      .executeTakeFirst();
    return exhausted.length + Number(requeued.numUpdatedRows);
  }

  async expireDue(now: number, limit: number): Promise<Task[]> {
    const due = this.db
      .selectFrom('tasks')
      .select('id')
      .where('status', '=', 'succeeded')
      .where('expires_at', '<=', now)
      .limit(limit);
    // The outer status check makes concurrent sweepers take each task once.
    return this.finishing((db) =>
      db
        .updateTable('tasks')
        .set((eb) => ({ status: 'expired', revision: nextRevision(eb) }))
        .where('id', 'in', this.dialect.lockForTaking(due))
        .where('status', '=', 'succeeded')
        .$call((qb) => this.returningFinished(qb.returningAll()))
        .execute(),
    );
  }

  async endNow(taskId: string, now: number): Promise<Task | undefined> {
    const [expired] = await this.finishing((db) =>
      db
        .updateTable('tasks')
        .set((eb) => ({ status: 'expired', expires_at: now, deleted_at: now, revision: nextRevision(eb) }))
        .where('id', '=', taskId)
        .where('status', '=', 'succeeded')
        .$call((qb) => this.returningFinished(qb.returningAll()))
        .execute(),
    );
    if (expired) return expired;
    const row = await this.db
      .updateTable('tasks')
      .set({ expires_at: now, deleted_at: now })
      .where('id', '=', taskId)
      .where('status', 'in', ['failed', 'canceled'])
      .where('expires_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
    return row && toTask(row);
  }

  /**
   * Runs a statement that moves tasks to a final state, and the effects that must commit with
   * it, in one transaction (none is opened when nothing follows the change).
   */
  private async finishing(change: (db: Kysely<Database>) => Promise<TaskRow[]>): Promise<Task[]> {
    if (this.plan.finishers.length === 0) return (await change(this.db)).map(toTask);
    return this.db.transaction().execute(async (trx) => {
      const rows = await change(trx);
      for (const row of rows) await this.runFinished(trx, row);
      return rows.map(toTask);
    });
  }

  private returningFinished(qb: ReturningTasks): ReturningTasks {
    return returningFinished(this.plan, qb);
  }

  /** The effects of one row's change to a final state, each given what its lookups read with the change. */
  private async runFinished(trx: Kysely<Database>, row: TaskRow): Promise<void> {
    const task = toTask(row);
    const columns = row as unknown as Record<string, unknown>;
    for (const { effect, lookups } of this.plan.finishers) {
      await effect.finished!(trx, task, Object.fromEntries(lookups.map(({ name, alias }) => [name, columns[alias]])));
    }
  }

  /**
   * `guarded` for a change to a final state: the attempt's row is ended and the effects that follow
   * the change commit with it (one transaction, one commit, instead of a second one for the attempt),
   * and so does the claim of the slot's next task when one is asked for. The transaction writes
   * first, so on SQLite it holds the write lock before the claim reads.
   */
  private async guardedFinish(
    lease: Lease,
    now: number,
    errorCode: string | null,
    change: (trx: Kysely<Database>) => Promise<TaskRow | undefined>,
    /** The change ended the attempt's row itself (writesInWith). */
    endsAttempt: boolean,
    next?: ClaimRequest,
  ): Promise<{ completed: boolean; next?: Claimed }> {
    return this.db.transaction().execute(async (trx) => {
      // The change is fenced by the lease (heldBy): no row means the lease was no longer held.
      const row = await change(trx);
      if (!row) return { completed: false };
      if (!endsAttempt)
        await this.endAttemptIn(trx, lease, row.status === 'succeeded' ? 'succeeded' : 'failed', errorCode, now);
      await this.runFinished(trx, row);
      if (!next) return { completed: true };
      const [claimed] = await this.fair.claimSeveralIn(trx, next, 1);
      return { completed: true, next: claimed };
    });
  }

  /** One statement that only changes the row while this lease still holds it. */
  private async guarded(lease: Lease, values: TaskChange): Promise<boolean> {
    const result = await this.db
      .updateTable('tasks')
      // Kysely does not export the type of `set`'s expression form; both forms are valid here.
      .set(values as never)
      .where(heldBy(lease))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}
