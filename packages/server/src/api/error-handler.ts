import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import {
  ApiError,
  InvalidField,
  InvalidRequest,
  ModelServedElsewhere,
  type ApiErrorCode,
  type FieldOffer,
} from '../errors.ts';
import { openAiErrorBody, type Dialect } from './dialects/dialect.ts';
import { unavailableFor } from './unavailable.ts';
import { clientClosed } from './client-closed.ts';

export type SchemaIssue = { instancePath: string; keyword: string; params: Record<string, unknown>; message?: string };

/**
 * The one place errors become responses (invariant 6, docs/architecture.md). A route owned by a dialect gets
 * that dialect's field names and envelope; other routes (models, files, content) the
 * OpenAI-style envelope `{error: {message, type, code, param}}` that both families' clients parse.
 */
export function installErrorHandling(app: FastifyInstance, dialects: readonly Dialect[]): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const dialect = request.routeOptions.config.dialectOf?.(request) ?? request.routeOptions.config.dialect;
    if (clientClosed(request, err)) {
      // Nobody's fault, and nobody left to answer: logged at info, and the connection is closed.
      request.log.info({ code: err.code, reason: err.message }, 'client closed the request');
      reply.hijack();
      reply.raw.destroy();
      return;
    }
    const unavailable = unavailableFor(err, reply);
    const apiError = unavailable ?? inDialect(toApiError(err, request), request.body, dialect, dialects);
    if (unavailable) request.log.warn({ err }, 'storage unavailable');
    else if (apiError.status >= 500) request.log.error({ err }, 'request failed');
    if (apiError.status === 409 && apiError.code === 'idempotency_in_flight') {
      reply.header('retry-after', String(dialect?.inFlightRetryAfterSeconds ?? 1));
    }
    if (apiError.retryAfterSeconds !== undefined) reply.header('retry-after', String(apiError.retryAfterSeconds));
    return reply.code(apiError.status).send((dialect?.errorBody ?? openAiErrorBody)(apiError));
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({
      error: {
        message: `No route for ${request.method} ${request.url.split('?')[0]}.`,
        type: 'not_found_error',
        code: 'route_not_found' satisfies ApiErrorCode,
        param: null,
      },
    }),
  );
}

/** Engine errors speak domain words: name the field as the caller's dialect does, and where a model is served. */
export function inDialect(
  error: ApiError,
  body: unknown,
  dialect: Dialect | undefined,
  dialects: readonly Dialect[],
): ApiError {
  if (error instanceof InvalidField) {
    if (!dialect) return error;
    const name = dialect.fieldName(error.field, body);
    const offered = error.offer && dialect.describeOffer?.(error as InvalidField & { offer: FieldOffer }, name, body);
    return error.named(name, offered);
  }
  if (error instanceof ModelServedElsewhere) {
    const path = dialects.find((d) => d.family === error.family)?.submits[0]?.path;
    return new ModelServedElsewhere(error.modelId, error.family, path && `POST ${path}`);
  }
  return error;
}

function toApiError(err: FastifyError, request: FastifyRequest): ApiError {
  if (err instanceof ApiError) return err;
  if (err.validation) {
    const context = err.validationContext ?? 'body';
    const source = { body: request.body, querystring: request.query, params: request.params, headers: request.headers };
    return fromSchemaIssues(err.validation as SchemaIssue[], context, source[context as keyof typeof source]);
  }
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
      return new ApiError(
        413,
        'invalid_request_error',
        'body_too_large',
        'The request body is larger than this server accepts.',
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(
        415,
        'invalid_request_error',
        'unsupported_media_type',
        'Send the request body as JSON with `Content-Type: application/json`.',
      );
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new InvalidRequest('invalid_json', 'The request body is empty; send a JSON object.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new InvalidRequest('invalid_json', 'The request body is not valid JSON.');
  }
  if (err instanceof SyntaxError || err.statusCode === 400)
    return new InvalidRequest('invalid_request', 'The request could not be parsed.');
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return new ApiError(err.statusCode, 'invalid_request_error', 'invalid_request', 'The request was refused.');
  }
  return new ApiError(500, 'server_error', 'internal_error', 'The server failed to handle the request.');
}

/** Turns the first schema violation into a message that names the field. */
export function fromSchemaIssues(issues: SchemaIssue[], context: string, input?: unknown): ApiError {
  const issue = issues[0];
  const path = issue.instancePath.replace(/^\//, '').split('/').filter(Boolean);
  const field = path.reduce(
    (acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part),
    '',
  );
  const p = issue.params;
  const name = (extra?: unknown) => [field, extra].filter(Boolean).join('.');
  switch (issue.keyword) {
    case 'required':
      return new InvalidRequest(
        'missing_field',
        `\`${name(p.missingProperty)}\` is required.`,
        name(p.missingProperty),
      );
    case 'type':
      if (!field) return new InvalidRequest('invalid_body', `The request ${context} must be a JSON object.`);
      return new InvalidRequest('invalid_type', `\`${field}\` must be ${article(String(p.type))}.`, field);
    case 'minimum':
      return new InvalidRequest('out_of_range', `\`${field}\` must be at least ${p.limit}.`, field);
    case 'maximum':
      return new InvalidRequest('out_of_range', `\`${field}\` must be at most ${p.limit}.`, field);
    case 'minLength':
      return new InvalidRequest('invalid_value', `\`${field}\` must not be empty.`, field);
    case 'enum': {
      // A word not among the offered ones: name the word sent and every word offered.
      const sent = path.reduce<unknown>((at, step) => (at as Record<string, unknown> | undefined)?.[step], input);
      const allowed = (p.allowedValues as unknown[] | undefined)?.map(String).join(', ') ?? '';
      return new InvalidRequest(
        field === 'variant' ? 'invalid_variant' : 'invalid_value',
        `\`${field}\` '${String(sent)}' is not offered; it offers ${allowed}.`,
        field || null,
      );
    }
    case 'maxItems':
      return new InvalidRequest('too_many_items', `\`${field}\` may hold at most ${p.limit} entries.`, field);
    default:
      return new InvalidRequest(
        'invalid_value',
        `\`${field || context}\` is invalid: ${issue.message ?? 'unexpected value'}.`,
        field || null,
      );
  }
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
