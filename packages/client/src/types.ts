/**
 * Wire types. Every shape comes from @vidgen/protocol, the schemas the server validates and
 * answers with: type-only imports, erased at run time, so the SDK keeps zero runtime dependencies.
 */
import type { FamilyATask, FamilyBTask } from '@vidgen/protocol';

export type {
  FamilyACreateBody,
  FamilyAEditBody,
  FamilyAExtensionBody,
  FamilyACreateResponse,
  FamilyATask,
  FamilyBCreateBody,
  FamilyBCreateResponse,
  FamilyBTask,
  ModelObject,
  ModelList,
  FileObject,
  FileDeleted,
  TaskError,
  // `expired: true` (a vidgen extension) is part of the protocol's family B task; the old name stays for SDK users.
  FamilyBTask as FamilyBTaskObject,
  // A listing entry (poll object + `created_at`, `idempotency_key`) and the page envelope around it.
  Listed,
  ListEnvelope as ListResponse,
  ContentVariant,
  WebhookEventBody as WebhookEvent,
  BalanceLowData,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
  WebhookDelivery,
  WebhookRecovery,
  EventObject,
  CallbackFields,
  AccountObject,
  UsageReport,
} from '@vidgen/protocol';

/**
 * A: `/v1/videos/*` (request_id, pending/done/failed/expired); B: `/v1/video/generations` (task_id,
 * queued/IN_PROGRESS/SUCCESS/FAILURE).
 */
export type Family = 'A' | 'B';

export type TaskObject<F extends Family> = F extends 'A' ? FamilyATask : FamilyBTask;

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
