import type { ApiFamily, Task, TaskStatus } from '../domain/task.ts';

/**
 * What the operator's console reads across accounts (`/admin/v1/*`). Every read costs the rows it
 * answers with, never the size of the tables: keyset pages over indexes and the hourly usage rollup
 * (migration 0190).
 */
export interface OperatorReads {
  /** Every account's tasks, newest first, `limit` after the id `after`. */
  tasks(query: OperatorTaskQuery): Promise<Task[]>;
  /** One task of any account, with its attempts. */
  task(id: string): Promise<{ task: Task; attempts: TaskAttemptRecord[] } | undefined>;
  /**
   * Queued and running tasks per model (each count stops at ACTIVE_COUNT_CAP), the oldest queued task,
   * and the last hours of the rollup.
   */
  overview(now: number): Promise<OverviewNumbers>;
  /** Spend, rendered time and tasks per bucket and group over [since, until). */
  usageSeries(query: UsageSeriesQuery): Promise<UsageSeriesRow[]>;
  /** Webhook deliveries in `status` of every account, newest first. */
  deliveryIds(query: { status: string; after?: string; limit: number }): Promise<DeliveryRef[]>;
  /** The endpoint of one delivery. */
  deliveryRef(id: string): Promise<DeliveryRef | undefined>;
  /** A task's webhook deliveries, oldest first. */
  taskDeliveryIds(taskId: string): Promise<DeliveryRef[]>;
  /** Endpoint ids with failed deliveries, the most first (at most `limit`). */
  failingEndpoints(limit: number): Promise<Array<{ endpointId: string; failed: number }>>;
}

export interface OperatorTaskQuery {
  accountId?: string;
  status?: TaskStatus;
  model?: string;
  family?: ApiFamily;
  tier?: string;
  batchId?: string;
  /** Epoch milliseconds, creation time: [since, until). */
  since?: number;
  until?: number;
  after?: string;
  limit: number;
}

export interface TaskAttemptRecord {
  attempt: number;
  worker: string;
  startedAt: number;
  endedAt: number | null;
  outcome: string | null;
  errorCode: string | null;
}

/** Where the overview stops counting a model's queued or running tasks: a count equal to it means at least. */
export const ACTIVE_COUNT_CAP = 10_000;

export interface OverviewNumbers {
  active: Array<{ model: string; queued: number; running: number }>;
  /** Creation time of the oldest queued task; null when none waits. */
  oldestQueuedAt: number | null;
  /** The last 24 UTC hours (the current one included), oldest first. */
  hours: Array<{ hour: number; succeeded: number; failed: number; canceled: number }>;
  failureCodes: Array<{ code: string; count: number }>;
  spendTodayUsdTicks: number;
  spendYesterdayUsdTicks: number;
}

export interface UsageSeriesQuery {
  bucket: 'hour' | 'day';
  groupBy: 'account' | 'model' | 'tier';
  since: number;
  until: number;
}

export interface UsageSeriesRow {
  /** The bucket's start, epoch milliseconds. */
  start: number;
  /** The account id, model or tier. */
  group: string;
  tasks: number;
  spendUsdTicks: number;
  renderedMs: number;
}

export interface DeliveryRef {
  id: string;
  endpointId: string;
}
