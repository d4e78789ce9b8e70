/**
 * Errors of the HTTP layer, shaped like openai-node's so code written against either reads the
 * same: one `APIError` base that carries what the server said, one subclass per status family.
 */
export type ErrorHeaders = Headers | undefined;

/** Base of every error this SDK throws, so callers can tell ours from anything else. */
export class VidgenError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

export interface ErrorPayload {
  message?: string;
  type?: string;
  code?: string | null;
  param?: string | null;
}

export class APIError extends VidgenError {
  /** HTTP status; undefined when no answer arrived (connection errors). */
  readonly status: number | undefined;
  readonly code: string | null;
  readonly type: string | null;
  readonly param: string | null;
  /** The server's `x-request-id`: quote it when reporting a problem. */
  readonly requestId: string | null;
  readonly headers: ErrorHeaders;
  readonly error: ErrorPayload | undefined;

  constructor(
    status: number | undefined,
    error: ErrorPayload | undefined,
    message: string,
    headers?: Headers,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.status = status;
    this.error = error;
    this.code = error?.code ?? null;
    this.type = error?.type ?? null;
    this.param = error?.param ?? null;
    this.headers = headers;
    this.requestId = headers?.get('x-request-id') ?? null;
  }

  /** Builds the subclass that matches an HTTP error answer. */
  static generate(status: number, body: unknown, fallbackMessage: string, headers: Headers): APIError {
    const payload = errorPayloadOf(body);
    const message = `${status} ${payload?.message ?? fallbackMessage}`;
    const Class = classForStatus(status);
    return new Class(status, payload, message, headers);
  }
}

export class BadRequestError extends APIError {}
export class AuthenticationError extends APIError {}
export class PermissionDeniedError extends APIError {}
export class NotFoundError extends APIError {}
export class ConflictError extends APIError {}
export class GoneError extends APIError {}
export class UnprocessableEntityError extends APIError {}
export class RateLimitError extends APIError {}
export class InternalServerError extends APIError {}

/** No answer: refused, reset, DNS failure… `code` holds the system error code when known. */
export class APIConnectionError extends APIError {
  constructor(message = 'Connection error.', options?: { cause?: unknown; code?: string }) {
    super(undefined, options?.code ? { code: options.code } : undefined, message, undefined, options);
  }
}

export class APIConnectionTimeoutError extends APIConnectionError {
  constructor(message = 'Request timed out.', options?: { cause?: unknown }) {
    super(message, { ...options, code: 'ETIMEDOUT' });
  }
}

/** The caller's AbortSignal fired; never retried. */
export class APIUserAbortError extends APIError {
  constructor(message = 'Request was aborted.', options?: { cause?: unknown }) {
    super(undefined, undefined, message, undefined, options);
  }
}

type APIErrorClass = new (
  status: number,
  error: ErrorPayload | undefined,
  message: string,
  headers?: Headers,
) => APIError;

function classForStatus(status: number): APIErrorClass {
  switch (status) {
    case 400:
      return BadRequestError;
    case 401:
      return AuthenticationError;
    case 403:
      return PermissionDeniedError;
    case 404:
      return NotFoundError;
    case 409:
      return ConflictError;
    case 410:
      return GoneError;
    case 422:
      return UnprocessableEntityError;
    case 429:
      return RateLimitError;
    default:
      return status >= 500 ? InternalServerError : APIError;
  }
}

/** Accepts `{error: {...}}` (both dialects) and tolerates proxies that answer with anything else. */
function errorPayloadOf(body: unknown): ErrorPayload | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const inner = (body as { error?: unknown }).error;
  if (inner && typeof inner === 'object') return inner as ErrorPayload;
  if (typeof inner === 'string') return { message: inner };
  return undefined;
}
