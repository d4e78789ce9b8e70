import type { ExpressionBuilder, Kysely, Selectable, Updateable } from 'kysely';
import type { Batch, BatchEnding, BatchLine, BatchStatus } from '../../domain/batch.ts';
import type { Lease } from '../../domain/lease.ts';
import type { BatchChange, BatchStore, NewBatch } from '../batch-store.ts';
import type { BatchesTable, BatchLinesTable, Database } from './schema.ts';
import type { SqlDialect } from './sql-dialect.ts';

/** What commits with a batch's final change (its webhook event), in its transaction. */
export type BatchEndEffect = (trx: Kysely<Database>, batch: Batch) => Promise<void>;

/** Batches and their line records on SQLite or PostgreSQL (migration 0260; docs/batch.md). */
export class SqlBatchStore implements BatchStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: SqlDialect,
    private readonly onEnd?: BatchEndEffect,
  ) {}

  async insert(batch: NewBatch): Promise<Batch> {
    const row = await this.db
      .insertInto('batches')
      .values({
        id: batch.id,
        account_id: batch.accountId,
        api_key_id: batch.keyId,
        endpoint: batch.endpoint,
        input_file_id: batch.inputFileId,
        completion_window: batch.completionWindow,
        status: 'validating',
        ending: null,
        errors: null,
        metadata: batch.metadata === null ? null : JSON.stringify(batch.metadata),
        output_file_id: null,
        error_file_id: null,
        created_at: batch.createdAt,
        in_progress_at: null,
        finalizing_at: null,
        completed_at: null,
        failed_at: null,
        expired_at: null,
        expires_at: batch.expiresAt,
        cancelling_at: null,
        cancelled_at: null,
        lease_owner: null,
        lease_expires_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toBatch(row);
  }

  async get(id: string): Promise<Batch | undefined> {
    const row = await this.db.selectFrom('batches').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toBatch(row);
  }

  async list(accountId: string, after: string | undefined, limit: number): Promise<Batch[]> {
    let query = this.db.selectFrom('batches').selectAll().where('account_id', '=', accountId);
    if (after !== undefined) query = query.where('id', '<', after);
    const rows = await query.orderBy('id', 'desc').limit(limit).execute();
    return rows.map(toBatch);
  }

  async requestCancel(id: string, now: number): Promise<Batch | undefined> {
    const row = await this.db
      .updateTable('batches')
      .set((eb) => ({
        status: 'cancelling',
        ending: eb.fn.coalesce('ending', eb.val('cancelled')),
        cancelling_at: now,
      }))
      .where('id', '=', id)
      .where('status', 'in', ['validating', 'in_progress'])
      .returningAll()
      .executeTakeFirst();
    return row && toBatch(row);
  }

  async claim(
    owner: string,
    now: number,
    leaseMs: number,
    exclude: readonly string[] = [],
  ): Promise<{ batch: Batch; lease: Lease } | undefined> {
    const free = (eb: ExpressionBuilder<Database, 'batches'>) =>
      eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', now)]);
    return this.dialect.writeTransaction(this.db, async (trx) => {
      const candidate = this.dialect.lockForTaking(
        trx
          .selectFrom('batches')
          .select('id')
          .where((eb) => eb.and([due(eb, now), free(eb)]))
          .$if(exclude.length > 0, (qb) => qb.where('id', 'not in', [...exclude]))
          .orderBy('created_at')
          .limit(1),
      );
      const row = await trx
        .updateTable('batches')
        .set((eb) => ({
          lease_owner: owner,
          lease_token: eb('lease_token', '+', 1),
          lease_expires_at: now + leaseMs,
        }))
        .where('id', 'in', candidate)
        .where(free)
        .returningAll()
        .executeTakeFirst();
      if (!row) return undefined;
      const batch = toBatch(row);
      return { batch, lease: { id: batch.id, owner, token: Number(row.lease_token), expiresAt: now + leaseMs } };
    });
  }

  async advance(lease: Lease, change: BatchChange, now: number, leaseMs: number): Promise<Batch | undefined> {
    return this.apply(this.db, lease, change, now + leaseMs);
  }

  async recordLines(
    lease: Lease,
    lines: BatchLine[],
    change: BatchChange,
    now: number,
    leaseMs: number,
  ): Promise<Batch | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const batch = await this.apply(trx, lease, change, now + leaseMs);
      if (!batch || lines.length === 0) return batch;
      await trx
        .insertInto('batch_lines')
        .values(lines.map((line) => lineRow(lease.id, line)))
        .onConflict((oc) => oc.columns(['batch_id', 'line']).doNothing())
        .execute();
      return batch;
    });
  }

  async end(lease: Lease, change: BatchChange): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const batch = await this.apply(trx, lease, change, null);
      if (!batch) return false;
      await this.onEnd?.(trx, batch);
      return true;
    });
  }

  async release(lease: Lease): Promise<void> {
    await this.db
      .updateTable('batches')
      .set({ lease_owner: null, lease_expires_at: null })
      .where(fence(lease))
      .execute();
  }

  async lines(batchId: string, from: number, to: number): Promise<BatchLine[]> {
    const rows = await this.db
      .selectFrom('batch_lines')
      .selectAll()
      .where('batch_id', '=', batchId)
      .where('line', '>=', from)
      .where('line', '<', to)
      .orderBy('line')
      .execute();
    return rows.map(toLine);
  }

  async firstLinesOf(batchId: string, customIds: readonly string[]): Promise<Map<string, number>> {
    if (customIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('batch_lines')
      .select(['custom_id', (eb) => eb.fn.min('line').as('line')])
      .where('batch_id', '=', batchId)
      .where('custom_id', 'in', [...customIds])
      .groupBy('custom_id')
      .execute();
    return new Map(rows.map((r) => [r.custom_id, Number(r.line)]));
  }

  async tasksIn(batchId: string, statuses: readonly string[], limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('tasks')
      .select('id')
      .where('batch_id', '=', batchId)
      .where('status', 'in', [...statuses])
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  }

  async keepVideosUntil(batchId: string, until: number): Promise<void> {
    await this.db
      .updateTable('tasks')
      .set({ expires_at: until })
      .where('batch_id', '=', batchId)
      .where('status', '=', 'succeeded')
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '<', until)]))
      .execute();
  }

  /** The change behind the fence; `leaseUntil` null gives the lease back with it. */
  private async apply(
    db: Kysely<Database>,
    lease: Lease,
    change: BatchChange,
    leaseUntil: number | null,
  ): Promise<Batch | undefined> {
    const row = await db
      .updateTable('batches')
      .set((eb) => ({
        ...columnsOf(change),
        // A cancel asked for meanwhile (requestCancel, not fenced) is never undone by a step that
        // read the row before it: only `cancelled` ends `cancelling`, and an ending once set stays.
        ...(change.status !== undefined && change.status !== 'cancelled'
          ? {
              status: eb.case().when('status', '=', 'cancelling').then(eb.ref('status')).else(change.status).end(),
            }
          : {}),
        ...(change.ending !== undefined ? { ending: eb.fn.coalesce('ending', eb.val(change.ending)) } : {}),
        ...(change.addFailed ? { failed: eb('failed', '+', change.addFailed) } : {}),
        lease_expires_at: leaseUntil,
        ...(leaseUntil === null ? { lease_owner: null } : {}),
      }))
      .where(fence(lease))
      .returningAll()
      .executeTakeFirst();
    return row && toBatch(row);
  }
}

/**
 * A batch with work for its sweeper: checking or finishing its file, lines still to take, a cancel
 * to carry out, every line ended, or its window just run out. One waiting only for running lines
 * to end is not due: each line's end counts itself on the row (engine/batches/batch-line-effects.ts).
 */
function due(eb: ExpressionBuilder<Database, 'batches'>, now: number) {
  return eb.or([
    eb('status', 'in', ['validating', 'finalizing', 'cancelling']),
    eb.and([
      eb('status', '=', 'in_progress'),
      eb.or([
        eb('queued', '<', eb.ref('total')),
        eb(eb('completed', '+', eb.ref('failed')), '>=', eb.ref('total')),
        eb.and([eb('ending', 'is', null), eb('expires_at', '<=', now)]),
      ]),
    ]),
  ]);
}

/** The fence of every write of a sweeper (docs/architecture.md, "Leases"): same batch, owner and token. */
function fence(lease: Lease) {
  return (eb: ExpressionBuilder<Database, 'batches'>) =>
    eb.and([eb('id', '=', lease.id), eb('lease_owner', '=', lease.owner), eb('lease_token', '=', lease.token)]);
}

function columnsOf(change: BatchChange): Updateable<BatchesTable> {
  const set: Updateable<BatchesTable> = {};
  if (change.status !== undefined) set.status = change.status;
  if (change.ending !== undefined) set.ending = change.ending;
  if (change.errors !== undefined) set.errors = JSON.stringify(change.errors);
  if (change.total !== undefined) set.total = change.total;
  if (change.queued !== undefined) set.queued = change.queued;
  if (change.outputFileId !== undefined) set.output_file_id = change.outputFileId;
  if (change.errorFileId !== undefined) set.error_file_id = change.errorFileId;
  if (change.costUsdTicks !== undefined) set.cost_usd_ticks = change.costUsdTicks;
  if (change.inProgressAt !== undefined) set.in_progress_at = change.inProgressAt;
  if (change.finalizingAt !== undefined) set.finalizing_at = change.finalizingAt;
  if (change.completedAt !== undefined) set.completed_at = change.completedAt;
  if (change.failedAt !== undefined) set.failed_at = change.failedAt;
  if (change.expiredAt !== undefined) set.expired_at = change.expiredAt;
  if (change.cancelledAt !== undefined) set.cancelled_at = change.cancelledAt;
  return set;
}

const time = (v: number | null) => (v === null ? null : Number(v));

export function toBatch(row: Selectable<BatchesTable>): Batch {
  return {
    id: row.id,
    accountId: row.account_id,
    keyId: row.api_key_id,
    endpoint: row.endpoint,
    inputFileId: row.input_file_id,
    completionWindow: row.completion_window,
    status: row.status as BatchStatus,
    ending: row.ending as BatchEnding | null,
    errors: row.errors === null ? null : JSON.parse(row.errors),
    metadata: row.metadata === null ? null : JSON.parse(row.metadata),
    total: Number(row.total),
    queued: Number(row.queued),
    completed: Number(row.completed),
    failed: Number(row.failed),
    costUsdTicks: Number(row.cost_usd_ticks),
    outputFileId: row.output_file_id,
    errorFileId: row.error_file_id,
    createdAt: Number(row.created_at),
    inProgressAt: time(row.in_progress_at),
    finalizingAt: time(row.finalizing_at),
    completedAt: time(row.completed_at),
    failedAt: time(row.failed_at),
    expiredAt: time(row.expired_at),
    expiresAt: Number(row.expires_at),
    cancellingAt: time(row.cancelling_at),
    cancelledAt: time(row.cancelled_at),
  };
}

function lineRow(batchId: string, line: BatchLine): BatchLinesTable {
  return {
    batch_id: batchId,
    line: line.line,
    id: line.id,
    custom_id: line.customId,
    request_id: line.requestId,
    task_id: line.taskId,
    outcome: line.outcome,
    status_code: line.statusCode,
    error: line.error === null ? null : JSON.stringify(line.error),
    body: line.body === null ? null : JSON.stringify(line.body),
  };
}

function toLine(row: Selectable<BatchLinesTable>): BatchLine {
  return {
    line: Number(row.line),
    id: row.id,
    customId: row.custom_id,
    requestId: row.request_id,
    taskId: row.task_id,
    outcome: row.outcome as BatchLine['outcome'],
    statusCode: row.status_code === null ? null : Number(row.status_code),
    error: row.error === null ? null : JSON.parse(row.error),
    body: row.body === null ? null : JSON.parse(row.body),
  };
}
