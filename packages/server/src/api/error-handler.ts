import type { FastifyError, FastifyInstance } from 'fastify';
import { ApiError, InvalidRequest, type ApiErrorCode } from '../errors.ts';

type SchemaIssue = { instancePath: string; keyword: string; params: Record<string, unknown>; message?: string };

/**
 * The one place errors become responses (DESIGN invariant 6). Both dialects share the
 * OpenAI-style envelope `{error: {message, type, code, param}}`, which new-api and xAI
 * clients already parse.
 */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const apiError = toApiError(err);
    if (apiError.status >= 500) request.log.error({ err }, 'request failed');
    const { status, type, code, message, param } = apiError;
    if (status === 409 && code === 'idempotency_in_flight') reply.header('retry-after', '1');
    return reply.code(status).send({ error: { message, type, code, param } });
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({
      error: { message: `No route for ${request.method} ${request.url.split('?')[0]}.`, type: 'not_found_error', code: 'route_not_found' satisfies ApiErrorCode, param: null },
    }),
  );
}

function toApiError(err: FastifyError): ApiError {
  if (err instanceof ApiError) return err;
  if (err.validation) return fromSchemaIssues(err.validation as SchemaIssue[], err.validationContext ?? 'body');
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
      return new ApiError(413, 'invalid_request_error', 'body_too_large', 'The request body is larger than this server accepts.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(415, 'invalid_request_error', 'unsupported_media_type', 'Send the request body as JSON with `Content-Type: application/json`.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new InvalidRequest('invalid_json', 'The request body is empty; send a JSON object.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new InvalidRequest('invalid_json', 'The request body is not valid JSON.');
  }
  if (err instanceof SyntaxError || err.statusCode === 400) return new InvalidRequest('invalid_request', 'The request could not be parsed.');
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return new ApiError(err.statusCode, 'invalid_request_error', 'invalid_request', 'The request was refused.');
  }
  return new ApiError(500, 'server_error', 'internal_error', 'The server failed to handle the request.');
}

/** Turns the first schema violation into a message that names the field. */
function fromSchemaIssues(issues: SchemaIssue[], context: string): ApiError {
  const issue = issues[0];
  const path = issue.instancePath.replace(/^\//, '').split('/').filter(Boolean);
  const field = path.reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
  const p = issue.params;
  const name = (extra?: unknown) => [field, extra].filter(Boolean).join('.');
  switch (issue.keyword) {
    case 'required':
      return new InvalidRequest('missing_field', `\`${name(p.missingProperty)}\` is required.`, name(p.missingProperty));
    case 'type':
      if (!field) return new InvalidRequest('invalid_body', `The request ${context} must be a JSON object.`);
      return new InvalidRequest('invalid_type', `\`${field}\` must be ${article(String(p.type))}.`, field);
    case 'minimum':
      return new InvalidRequest('out_of_range', `\`${field}\` must be at least ${p.limit}.`, field);
    case 'maximum':
      return new InvalidRequest('out_of_range', `\`${field}\` must be at most ${p.limit}.`, field);
    case 'minLength':
      return new InvalidRequest('invalid_value', `\`${field}\` must not be empty.`, field);
    case 'maxItems':
      return new InvalidRequest('too_many_items', `\`${field}\` may hold at most ${p.limit} entries.`, field);
    default:
      return new InvalidRequest('invalid_value', `\`${field || context}\` is invalid: ${issue.message ?? 'unexpected value'}.`, field || null);
  }
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
