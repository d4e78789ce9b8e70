/**
 * Typed errors with stable codes. Engine and API throw these; the single error handler in
 * api/error-handler.ts renders them. Messages are written for the caller and never carry
 * internals (paths, SQL, upstream hosts, keys). Codes come from API_ERROR_CODES only, so
 * docs/errors.md (checked against this list by a test) names every code a client can see.
 */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'rate_limit_error'
  | 'billing_error'
  | 'server_error';

/** Every API error code; one per line, so that additions merge cleanly. */
export const API_ERROR_CODES = [
  'missing_field',
  'invalid_type',
  'out_of_range',
  'invalid_value',
  'too_many_items',
  'invalid_body',
  'invalid_json',
  'invalid_request',
  'model_not_found',
  'model_wrong_endpoint',
  'model_not_supported',
  'invalid_prompt',
  'image_required',
  'invalid_image',
  'image_prefix_missing',
  'image_prefix_unsupported',
  'image_base64_invalid',
  'image_type_mismatch',
  'file_not_found',
  'character_not_found',
  'invalid_video',
  'task_not_found',
  'task_not_done',
  'invalid_aspect_ratio',
  'unsupported_aspect_ratio',
  'unsupported_duration',
  'unsupported_resolution',
  'unsupported_audio',
  'unsupported_input',
  'invalid_audio',
  'invalid_keyframe',
  'service_tier_not_allowed',
  'invalid_variant',
  'variant_not_found',
  'invalid_file',
  'invalid_idempotency_key',
  'invalid_wait',
  'invalid_limit',
  'invalid_status',
  'invalid_created_after',
  'invalid_api_key',
  'signature_invalid',
  'signature_expired',
  'route_not_found',
  'video_not_ready',
  'task_not_cancelable',
  'batch_not_found',
  'batch_not_cancelable',
  'task_not_finished',
  'idempotency_in_flight',
  'video_expired',
  'video_deleted',
  'video_delivered',
  'invalid_upload_url',
  'upload_url_forbidden',
  'upload_url_required',
  'body_too_large',
  'unsupported_media_type',
  'range_not_satisfiable',
  'idempotency_key_reused',
  'internal_error',
  'invalid_url',
  'uri_too_long',
  'headers_too_large',
  'request_timeout',
  'invalid_multipart',
  'service_unavailable',
  'insufficient_credits',
  'rate_limit_exceeded',
  'too_many_tasks',
  'account_not_found',
  'key_not_found',
  'account_exists',
  'invalid_amount',
  'invalid_admin_token',
  'admin_disabled',
  'invalid_webhook_url',
  'webhook_url_forbidden',
  'webhook_not_found',
  'webhook_delivery_not_found',
  'webhook_disabled',
  'webhook_limit_reached',
  'webhook_disabled_by_operator',
  'channel_not_found',
  'account_unmetered',
  'nothing_to_refund',
  'already_refunded',
  'key_quota_exceeded',
  'content_policy_violation',
  'spend_cap_exceeded',
  'too_many_streams',
  'invalid_last_event_id',
] as const;

export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

const KNOWN_CODES: ReadonlySet<string> = new Set(API_ERROR_CODES);

/** For codes that come from elsewhere (media's refusal codes): true when a client may see them as they are. */
export function isApiErrorCode(code: string): code is ApiErrorCode {
  return KNOWN_CODES.has(code);
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    readonly code: ApiErrorCode,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }

  /** Seconds the client should wait before trying again, sent as `Retry-After`. */
  retryAfterSeconds?: number;
}

export class InvalidRequest extends ApiError {
  constructor(code: ApiErrorCode, message: string, param: string | null = null) {
    super(400, 'invalid_request_error', code, message, param);
  }
}

export class Unauthenticated extends ApiError {
  constructor(message = 'Missing or invalid API key. Send it as `Authorization: Bearer <key>`.') {
    super(401, 'authentication_error', 'invalid_api_key', message);
  }
}

export class Forbidden extends ApiError {
  constructor(code: ApiErrorCode, message: string) {
    super(403, 'permission_error', code, message);
  }
}

export class NotFound extends ApiError {
  constructor(
    what: 'task' | 'file' | 'model' | 'account' | 'key' | 'batch' | 'character',
    id: string,
    param: string | null = null,
  ) {
    super(404, 'not_found_error', `${what}_not_found`, `No ${what} found with id '${id}'.`, param);
  }
}

/** Zero retention: the video went to the caller's storage and was not kept here (docs/storage.md). */
export class DeliveredElsewhere extends ApiError {
  constructor() {
    super(
      404,
      'not_found_error',
      'video_delivered',
      "The video was delivered to the caller's storage (output.upload_url) and, under zero retention, not kept here.",
    );
  }
}

export class Conflict extends ApiError {
  constructor(code: ApiErrorCode, message: string) {
    super(409, 'conflict_error', code, message);
  }
}

export class Unprocessable extends ApiError {
  constructor(code: ApiErrorCode, message: string, param: string | null = null) {
    super(422, 'invalid_request_error', code, message, param);
  }
}

export class Gone extends ApiError {
  constructor(code: ApiErrorCode, message: string) {
    super(410, 'invalid_request_error', code, message);
  }
}

/**
 * A submit rule broken by one field, named in domain words (`aspectRatio`, `images[0].url`,
 * `video.taskId`): the engine knows no dialect. The error handler asks the route's dialect for
 * its own name of the field and renders the message with it (`aspect_ratio` or `ratio`).
 */
export class InvalidField extends ApiError {
  constructor(
    readonly field: string,
    code: ApiErrorCode,
    readonly describe: (name: string) => string,
    /** For a value not among those offered: what was sent and what is offered, in domain words. */
    readonly offer?: FieldOffer,
  ) {
    super(400, 'invalid_request_error', code, describe(field), field);
  }

  /** The same error, with the field called `name` (and, where the dialect says it its own way, its message). */
  named(name: string, message?: string): ApiError {
    return new ApiError(this.status, this.type, this.code, message ?? this.describe(name), name);
  }
}

/** A value not among the offered ones, in domain words (a dialect may say them in its own). */
export interface FieldOffer {
  /** The model that offers them, where the offer is a model's. */
  model?: string;
  sent: string;
  offered: readonly string[];
  /** For a shape (aspect ratio, resolution): every frame size (`1280x720`) the model renders. */
  frameSizes?: readonly string[];
}

/**
 * The model exists but another dialect serves it. The message names where, which only the API
 * layer knows: `servedAt` is filled in by the error handler.
 */
export class ModelServedElsewhere extends ApiError {
  constructor(
    readonly modelId: string,
    readonly family: string,
    servedAt?: string,
  ) {
    super(
      400,
      'invalid_request_error',
      'model_wrong_endpoint',
      `Model '${modelId}' is served at ${servedAt ?? 'another endpoint'}.`,
      'model',
    );
  }
}

/**
 * A metered account's available balance (balance − holds) does not cover the price (invariant 7, docs/architecture.md).
 */
export class InsufficientCredits extends ApiError {
  constructor(priceUsdTicks: number, availableUsdTicks?: number) {
    const available = availableUsdTicks === undefined ? '' : ` (available ${availableUsdTicks})`;
    super(
      402,
      'billing_error',
      'insufficient_credits',
      `The account's available credits${available} do not cover this request's price of ${priceUsdTicks} USD ticks.`,
    );
  }
}

/** A limit refused the request for now; `Retry-After` says when it will be accepted (or worth retrying). */
export class TooManyRequests extends ApiError {
  constructor(
    code: 'rate_limit_exceeded' | 'too_many_tasks' | 'too_many_streams',
    message: string,
    retryAfterSeconds: number,
  ) {
    super(429, 'rate_limit_error', code, message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
