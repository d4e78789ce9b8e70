/**
 * Typed errors with stable codes. Engine and API throw these; the single error handler in
 * api/error-handler.ts renders them. Messages are written for the caller and never carry
 * internals (paths, SQL, upstream hosts, keys).
 */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'rate_limit_error'
  | 'server_error';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    readonly code: string,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

export class InvalidRequest extends ApiError {
  constructor(code: string, message: string, param: string | null = null) {
    super(400, 'invalid_request_error', code, message, param);
  }
}

export class Unauthenticated extends ApiError {
  constructor(message = 'Missing or invalid API key. Send it as `Authorization: Bearer <key>`.') {
    super(401, 'authentication_error', 'invalid_api_key', message);
  }
}

export class Forbidden extends ApiError {
  constructor(code: string, message: string) {
    super(403, 'permission_error', code, message);
  }
}

export class NotFound extends ApiError {
  constructor(what: string, id: string, param: string | null = null) {
    super(404, 'not_found_error', `${what}_not_found`, `No ${what} found with id '${id}'.`, param);
  }
}

export class Conflict extends ApiError {
  constructor(code: string, message: string) {
    super(409, 'conflict_error', code, message);
  }
}

export class Unprocessable extends ApiError {
  constructor(code: string, message: string, param: string | null = null) {
    super(422, 'invalid_request_error', code, message, param);
  }
}

export class Gone extends ApiError {
  constructor(code: string, message: string) {
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
    code: string,
    readonly describe: (name: string) => string,
  ) {
    super(400, 'invalid_request_error', code, describe(field), field);
  }

  /** The same error, with the field called `name`. */
  named(name: string): ApiError {
    return new ApiError(this.status, this.type, this.code, this.describe(name), name);
  }
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
    super(400, 'invalid_request_error', 'model_wrong_endpoint', `Model '${modelId}' is served at ${servedAt ?? 'another endpoint'}.`, 'model');
  }
}
