/**
 * Wire types. The shapes come from @vidgen/protocol (type-only imports, erased at run time, so
 * the SDK keeps zero runtime dependencies); list shapes are declared here until the protocol has them.
 */
import type {
  FamilyACreateBody, FamilyAEditBody, FamilyAExtensionBody, FamilyACreateResponse, FamilyATask,
  FamilyBCreateBody, FamilyBCreateResponse, FamilyBTask, ModelObject, ModelList, FileObject, FileDeleted, TaskError,
} from '@vidgen/protocol';

export type {
  FamilyACreateBody, FamilyAEditBody, FamilyAExtensionBody, FamilyACreateResponse, FamilyATask,
  FamilyBCreateBody, FamilyBCreateResponse, FamilyBTask, ModelObject, ModelList, FileObject, FileDeleted, TaskError,
};

/** A: `/v1/videos/*` (request_id, pending/done/failed/expired); B: `/v1/video/generations` (task_id, queued/IN_PROGRESS/SUCCESS/FAILURE). */
export type Family = 'A' | 'B';

/** Family B marks a result whose retention ended with `expired: true` (it stays SUCCESS). */
export type FamilyBTaskObject = FamilyBTask & { expired?: boolean };

export type TaskObject<F extends Family> = F extends 'A' ? FamilyATask : FamilyBTaskObject;

/** One entry of a listing: the poll object plus its creation time (unix seconds). */
export type Listed<T> = T & { created_at: number; idempotency_key?: string };

export interface ListResponse<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  last_id: string | null;
}

export interface ListParams {
  /** 1–100, default 20. */
  limit?: number;
  /** A task id: the page after it. */
  after?: string;
  /** In the family's own words (`pending`… or `queued`…). */
  status?: string;
  model?: string;
  /** Unix seconds. */
  created_after?: number;
  idempotency_key?: string;
}

/** Per-call options, as in openai-node. */
export interface RequestOptions {
  /** Milliseconds for one attempt. */
  timeout?: number;
  maxRetries?: number;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

export interface CreateOptions extends RequestOptions {
  /** Reuse a key to continue an earlier submit; by default a new one is made once per create. */
  idempotencyKey?: string;
  /** Where the result should be saved; kept in the journal so `resume` can finish the download. */
  downloadTo?: string;
}

/** What a create returns: the server's answer plus what identifies the submit. */
export interface Created<T> {
  data: T;
  idempotencyKey: string;
  /** The server answered with `Idempotent-Replayed: true`: this is the first submit's answer again. */
  replayed: boolean;
  /** The answer came from looking the task up after an ambiguous failure, not from the create itself. */
  recovered: boolean;
}
