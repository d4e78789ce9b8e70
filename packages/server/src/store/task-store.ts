import type {
  ApiFamily,
  ImageRef,
  Task,
  TaskErrorInfo,
  TaskKind,
  TaskParams,
  TaskResult,
  TaskStatus,
  ServiceTier,
} from '../domain/task.ts';
import type { Lease } from '../domain/lease.ts';

import type { QueueSnapshot } from '../domain/queue-snapshot.ts';

export type { ImageRef };

export interface NewTask {
  id: string;
  /** The caller's Idempotency-Key, already reserved with `reserveIdempotencyKey`. */
  idempotencyKey?: string;
  accountId: string;
  family: ApiFamily;
  kind: TaskKind;
  model: string;
  backend: string;
  params: TaskParams;
  createdAt: number;
  /** The API key it was submitted with (per-key limits, quotas and usage). */
  keyId?: string;
  /** The trace the submit ran in (observability/tracing, storedTraceContext), for the worker to continue. */
  traceContext?: string | null;
  /** Absent: `default`. */
  serviceTier?: ServiceTier;
  /** The batch the task is a line of. */
  batchId?: string | null;
}

export interface IdempotencyClaim {
  accountId: string;
  key: string;
  /** Fingerprint of the request body: the same key may only ever be used for the same request. */
  requestHash: string;
}

export type Reservation =
  | { kind: 'reserved' }
  | { kind: 'in_flight'; requestHash: string }
  | { kind: 'existing'; taskId: string; requestHash: string };

/** A page of one account's tasks, newest first; `after` is the id the previous page ended with. */
export interface TaskQuery {
  accountId: string;
  /** Undefined: the tasks of every family. */
  family?: ApiFamily;
  limit: number;
  after?: string;
  statuses?: TaskStatus[];
  model?: string;
  /** Epoch milliseconds. */
  createdAfter?: number;
  idempotencyKey?: string;
  /** By id, so by creation time; `after` is then the id the page starts past. Default newest first. */
  order?: 'asc' | 'desc';
}

export interface ClaimRequest {
  owner: string;
  /** The lane: claims never cross backends, each has its own slots. */
  backend: string;
  leaseMs: number;
  now: number;
  /** Most tasks one account may have running in this lane; 0 for no cap. */
  maxRunningPerAccount: number;
  /**
   * Most flex and batch tasks this owner may run in the lane while tasks of a higher tier are
   * queued or running there (its share of its slots); absent: no bound.
   */
  lowRankSlots?: number;
}

/** A task a worker now runs, and the lease every write of that attempt presents. */
export interface Claimed {
  task: Task;
  lease: Lease;
  /** The trace its submit ran in (NewTask.traceContext); null when tracing was off then. */
  traceContext?: string | null;
}

export interface LaneStats {
  queued: Array<{ backend: string; count: number }>;
  running: Array<{ backend: string; accountId: string; count: number }>;
}

export type AttemptOutcome = 'succeeded' | 'failed' | 'retry' | 'released' | 'lost' | 'canceled' | 'lease_expired';

export interface AttemptRecord {
  taskId: string;
  attempt: number;
  worker: string;
  startedAt: number;
  endedAt: number | null;
  outcome: AttemptOutcome | null;
  errorCode: string | null;
}

/**
 * The tasks table is the queue and the single source of truth (invariant 1, docs/architecture.md).
 * Every write a worker makes after its claim is one statement guarded by its lease token:
 * a method returns false when the lease is no longer held, and the caller must then drop
 * whatever it produced.
 */
export interface TaskStore {
  /** Writes a queued task; with an idempotency key, binds the key to it in the same transaction. */
  insert(task: NewTask): Promise<Task>;
  get(id: string): Promise<Task | undefined>;
  /**
   * The revision (Task.revision) of each of these tasks that exists, in one read: how a process
   * watching many tasks finds the few that changed without reading each.
   */
  revisions(ids: readonly string[]): Promise<Map<string, number>>;
  list(query: TaskQuery): Promise<Task[]>;
  /**
   * Reserves an idempotency key for a request about to create a task. A reservation older than
   * `staleBefore` whose request never finished (its process died) may be taken over.
   */
  reserveIdempotencyKey(claim: IdempotencyClaim, now: number, staleBefore: number): Promise<Reservation>;
  /** Frees a reservation whose request failed before creating a task, so a retry can run. */
  releaseIdempotencyKey(claim: IdempotencyClaim): Promise<void>;
  /** Keeps a reservation fresh while its request runs: only a reservation nobody renews goes stale. */
  renewIdempotencyKey(claim: IdempotencyClaim, now: number): Promise<void>;
  /**
   * Claims a runnable task of one lane, fairly: the account with the fewest running tasks in
   * the lane (under its cap) goes first, the one waiting longest among equals; within an account,
   * oldest first. Records the attempt.
   */
  claim(request: ClaimRequest): Promise<Claimed | undefined>;
  /**
   * Up to `max` claims at once (idle slots of one lane), each with its own lease and attempt
   * row, handed out in the order successive `claim` calls would have been.
   */
  claimSeveral(request: ClaimRequest, max: number): Promise<Claimed[]>;
  endAttempt(lease: Lease, outcome: AttemptOutcome, errorCode: string | null, now: number): Promise<void>;
  attempts(taskId: string): Promise<AttemptRecord[]>;
  /**
   * Cancels a queued or running task (or only a queued one: `onlyQueued`, a batch's expiry) in one
   * statement; undefined when it was not in such a state.
   */
  cancel(taskId: string, now: number, onlyQueued?: boolean): Promise<Task | undefined>;
  /** Queue depth per lane and running tasks per lane and account, for metrics. */
  laneStats(): Promise<LaneStats>;
  /** The lane's queued tasks at this moment, from which every position is computed without a query. */
  queueSnapshot(backend: string): Promise<QueueSnapshot>;
  renew(lease: Lease, leaseMs: number, now: number): Promise<Lease | undefined>;
  reportProgress(lease: Lease, progress: number): Promise<boolean>;
  /** The backend's own state for this task (see GenerationContext.checkpoint), undefined when none. */
  loadBackendState(taskId: string): Promise<unknown | undefined>;
  saveBackendState(lease: Lease, state: unknown): Promise<boolean>;
  /** Also ends the attempt's row (`succeeded`), in the same transaction (or the same statement). */
  complete(lease: Lease, result: TaskResult, now: number, expiresAt: number): Promise<boolean>;
  /**
   * `complete`, and the claim (as `claim` makes it) of the lane's next task for the slot this frees,
   * in as few round trips as the store can: in the same transaction, or, where a completion is one
   * statement committed alone, in the statement after it. Nothing is claimed when the completion
   * is refused.
   */
  completeAndClaim(
    lease: Lease,
    result: TaskResult,
    now: number,
    expiresAt: number,
    next: ClaimRequest,
  ): Promise<{ completed: boolean; next?: Claimed }>;
  /** Also ends the attempt's row (`failed`, with the error's code), in the same transaction. */
  fail(lease: Lease, error: TaskErrorInfo, now: number): Promise<boolean>;
  /** Puts the task back in the queue after a transient failure, runnable again at `availableAt`. */
  retry(lease: Lease, error: TaskErrorInfo, availableAt: number): Promise<boolean>;
  /** Gives the lease back without using up the attempt (shutdown), so another worker starts at once. */
  release(lease: Lease, now: number): Promise<boolean>;
  /**
   * Returns running tasks whose lease ran out to the queue, or fails them when they have used
   * all their attempts. Returns how many were touched.
   */
  reclaimExpired(now: number, maxAttempts: number): Promise<number>;
  /** Ids of running tasks whose lease `owner` holds: none once that owner's worker has stopped. */
  leasedBy(owner: string): Promise<string[]>;
  /** Marks succeeded tasks past retention as expired and returns them so their files can be removed. */
  expireDue(now: number, limit: number): Promise<Task[]>;
  /**
   * Ends a finished task's life now, as retention does at its end: a succeeded task becomes
   * expired (its files are the caller's to delete), a failed or canceled one keeps its state;
   * both get `expiresAt = now`. Undefined when the task is not finished (or is gone already).
   */
  endNow(taskId: string, now: number): Promise<Task | undefined>;
}

/**
 * The task insert found its Idempotency-Key already bound to another task: a retry took over a
 * reservation this request was too slow to renew, and created the task first. Nothing was written.
 */
export class IdempotencyKeyTaken extends Error {}
