/**
 * @vidgen/client — the browser-safe SDK (Node 20+ and browsers, global fetch, zero runtime
 * dependencies). File-system parts (journal on disk, downloads to files) are in `@vidgen/client/node`.
 */
export { VidgenClient, DEFAULT_BASE_URL, normalizeBaseURL, type ClientOptions } from './vidgen-client.ts';
export {
  VidgenError,
  APIError,
  BadRequestError,
  AuthenticationError,
  PermissionDeniedError,
  NotFoundError,
  ConflictError,
  GoneError,
  UnprocessableEntityError,
  RateLimitError,
  InternalServerError,
  APIConnectionError,
  APIConnectionTimeoutError,
  APIUserAbortError,
  type ErrorPayload,
} from './errors.ts';
export {
  SubmitOutcomeUnknown,
  WaitTimeoutError,
  TaskFailedError,
  ResultExpiredError,
  TaskNotReadyError,
  DownloadCheckError,
  type DownloadCheck,
} from './task-errors.ts';
export { Page } from './core/page.ts';
export { backoffDelay, parseRetryAfter, DEFAULT_BACKOFF, type BackoffOptions } from './core/backoff.ts';
export { canonicalJson, requestFingerprint, newIdempotencyKey } from './core/fingerprint.ts';
export { isRetryable, wasUndelivered, type FetchLike } from './core/transport.ts';
export { viewOf, taskIdOf, FAMILY_PATHS, type TaskView, type TaskPhase } from './wait/task-view.ts';
export { DEFAULT_MAX_WAIT_MS, LONG_POLL_HEADER, type WaitOptions, type PollPlan } from './wait/wait-for.ts';
export { taskStreamPath, type TaskStreamEvent, type TaskStreamOptions } from './wait/task-stream.ts';
export { StreamNotOfferedError, type EventStreamOptions, type ServerSentEvent } from './core/event-stream.ts';
export { EventStreamParser } from './core/event-stream-parser.ts';
export { findByIdempotencyKey, type Lookup } from './submit/find-by-idempotency-key.ts';
export {
  needsResume,
  type TaskJournal,
  type JournalEntry,
  type JournalState,
  type TaskKind,
} from './journal/task-journal.ts';
export type { ResumeOptions, ResumeResult, ResumeOutcome } from './journal/resume-journal.ts';
export { accountOf, inScope, type JournalScope } from './journal/journal-scope.ts';
export { checkMp4Signature, checkContentType } from './download-checks.ts';
export type { RetrieveOptions } from './resources/videos.ts';
export type { FileCreateParams } from './resources/files.ts';
export type { EventListParams } from './resources/events.ts';
export type { ContentRequestOptions } from './resources/content.ts';
export { formatUsdTicks, TICKS_PER_USD } from './usd-ticks.ts';
export {
  verifyWebhook,
  WebhookVerificationError,
  type WebhookHeaders,
  type VerifyWebhookOptions,
} from './webhooks/verify-webhook.ts';
export type * from './types.ts';
