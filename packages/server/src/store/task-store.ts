import type { ApiFamily, ImageRef, Lease, Task, TaskErrorInfo, TaskKind, TaskParams, TaskResult } from '../engine/task.ts';

export type { ImageRef };

export interface NewTask {
  id: string;
  accountId: string;
  family: ApiFamily;
  kind: TaskKind;
  model: string;
  backend: string;
  params: TaskParams;
  createdAt: number;
}

export interface ClaimRequest {
  owner: string;
  backends: string[];
  leaseMs: number;
  now: number;
}

/**
 * The tasks table is the queue and the single source of truth (DESIGN invariant 1).
 * Every write a worker makes after its claim is one statement guarded by its lease token:
 * a method returns false when the lease is no longer held, and the caller must then drop
 * whatever it produced.
 */
export interface TaskStore {
  insert(task: NewTask): Promise<Task>;
  get(id: string): Promise<Task | undefined>;
  /** Claims the oldest runnable task of the given backends, or nothing. */
  claim(request: ClaimRequest): Promise<{ task: Task; lease: Lease } | undefined>;
  renew(lease: Lease, leaseMs: number, now: number): Promise<Lease | undefined>;
  reportProgress(lease: Lease, progress: number): Promise<boolean>;
  complete(lease: Lease, result: TaskResult, now: number, expiresAt: number): Promise<boolean>;
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
  /** Marks succeeded tasks past retention as expired and returns them so their files can be removed. */
  expireDue(now: number, limit: number): Promise<Task[]>;
}
