import type { Batch, BatchEnding, BatchError, BatchLine, BatchStatus } from '../domain/batch.ts';
import type { Lease } from '../domain/lease.ts';

export type NewBatch = Pick<
  Batch,
  | 'id'
  | 'accountId'
  | 'keyId'
  | 'endpoint'
  | 'inputFileId'
  | 'completionWindow'
  | 'metadata'
  | 'createdAt'
  | 'expiresAt'
>;

/** What a sweeper's step changes on the batch it holds: only these columns, behind its lease. */
export interface BatchChange {
  status?: BatchStatus;
  ending?: BatchEnding;
  errors?: BatchError[];
  total?: number;
  queued?: number;
  /** Added to the failed count (refused lines). */
  addFailed?: number;
  outputFileId?: string | null;
  errorFileId?: string | null;
  costUsdTicks?: number;
  inProgressAt?: number;
  finalizingAt?: number;
  completedAt?: number;
  failedAt?: number;
  expiredAt?: number;
  cancelledAt?: number;
}

/**
 * Batches (docs/batch.md) and the records of their lines. A batch is worked on by one sweeper at a
 * time, across processes: a claim takes its lease with a fencing token (domain/lease.ts), and every
 * write of the holder is guarded by it, so a holder whose lease ran out writes nothing.
 */
export interface BatchStore {
  insert(batch: NewBatch): Promise<Batch>;
  get(id: string): Promise<Batch | undefined>;
  /** The account's batches, newest first, after the id `after` (OpenAI's cursor). */
  list(accountId: string, after: string | undefined, limit: number): Promise<Batch[]>;
  /** `validating` or `in_progress` → `cancelling`, in one statement; undefined when the batch was not in either. */
  requestCancel(id: string, now: number): Promise<Batch | undefined>;
  /** A batch with work to do (other than `exclude`) whose lease is free or ran out, taken for `leaseMs`. */
  claim(
    owner: string,
    now: number,
    leaseMs: number,
    exclude?: readonly string[],
  ): Promise<{ batch: Batch; lease: Lease } | undefined>;
  /** Applies a change and renews the lease; the batch as it is now, or undefined when the lease was lost. */
  advance(lease: Lease, change: BatchChange, now: number, leaseMs: number): Promise<Batch | undefined>;
  /** Writes line records (again, after a kill: existing ones are kept) and the change, in one transaction. */
  recordLines(
    lease: Lease,
    lines: BatchLine[],
    change: BatchChange,
    now: number,
    leaseMs: number,
  ): Promise<Batch | undefined>;
  /**
   * The final change (to `completed`, `failed`, `expired` or `cancelled`), with what must commit with
   * it (its webhook event: store/sql/sql-batch-store.ts's `onEnd`) in one transaction; false when the
   * lease was lost.
   */
  end(lease: Lease, change: BatchChange): Promise<boolean>;
  /** Gives the lease back (the next claim may take the batch at once). */
  release(lease: Lease): Promise<void>;
  /** Records of lines `from` ≤ line < `to`, in line order. */
  lines(batchId: string, from: number, to: number): Promise<BatchLine[]>;
  /** The first line recorded with each of these `custom_id`s (absent: none has it yet). */
  firstLinesOf(batchId: string, customIds: readonly string[]): Promise<Map<string, number>>;
  /** Up to `limit` of the batch's tasks in these states, for a cancel or an expiry to end. */
  tasksIn(batchId: string, statuses: readonly string[], limit: number): Promise<string[]>;
  /** Keeps the batch's succeeded videos at least until `until` (its files' expiry). */
  keepVideosUntil(batchId: string, until: number): Promise<void>;
}
