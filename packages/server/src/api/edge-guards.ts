import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import { ApiError, InvalidRequest, NotFound } from '../errors.ts';
import { openAiErrorBody, type Dialect } from './dialects/dialect.ts';

/** No request body of this API nests deeper than a few levels; the request fingerprint and the schema walk recurse. */
export const MAX_JSON_DEPTH = 32;
/** Fastify's default maxParamLength: ids are at most 64 characters in the store, so longer ones are refused as 414. */
export const MAX_PARAM_LENGTH = 100;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const CONTROL = /[\u0000-\u001f\u007f]/;
/** In body text only NUL is refused (prompts may hold line breaks and tabs): PostgreSQL cannot store it. */
const hasNul = (text: string) => text.includes('\u0000');

/**
 * Checks every request has to pass before a handler runs, identical on every store
 * (invariant 4: bad input gets a 4xx and changes nothing). PostgreSQL refuses a NUL byte in
 * text and SQLite does not: both get the same answer here, before any query is made.
 */
export function installEdgeGuards(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    // openai-python sends `Content-Type: application/json` with an empty DELETE: nothing to parse.
    if (text === '' && request.method === 'DELETE') return done(null, undefined);
    if (jsonDepth(text) > MAX_JSON_DEPTH) {
      return done(
        new InvalidRequest('invalid_body', `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`, 'body'),
        undefined,
      );
    }
    parseJson(request, text, (err, value) => {
      if (err) return done(err, undefined);
      const at = controlCharacterAt(value, '');
      if (at !== undefined)
        return done(
          new InvalidRequest('invalid_value', `\`${at || 'body'}\` must not contain a NUL character.`, at || 'body'),
          undefined,
        );
      done(null, value);
    });
  });

  // Callback-style (not async): every request passes here, and none needs a promise.
  app.addHook('preValidation', (request, _reply, done) => done(refusalOf(request)));
}

/** Why the request's path parameters or query are refused, if they are. */
function refusalOf(request: FastifyRequest): ApiError | undefined {
  const params = (request.params ?? {}) as Record<string, unknown>;
  for (const name in params) {
    const value = params[name];
    // No id holds a control character: such an id names nothing (404, as any unknown id).
    if (typeof value === 'string' && CONTROL.test(value))
      return new NotFound(request.url.startsWith('/v1/files') ? 'file' : 'task', value);
  }
  const query = (request.query ?? {}) as Record<string, unknown>;
  for (const name in query) {
    const value = query[name];
    if (typeof value !== 'string')
      return new InvalidRequest('invalid_value', `\`${name}\` may be given only once.`, name);
    if (CONTROL.test(value))
      return new InvalidRequest('invalid_value', `\`${name}\` must not contain control characters.`, name);
  }
  return undefined;
}

/**
 * Fastify options for the refusals made before any route runs (bad percent-encoding, a path
 * parameter over the length limit, malformed or oversized request heads): they get the same
 * envelope and an `x-request-id` as every other error.
 */
export function frameworkRefusals(dialects: readonly Dialect[], nextId: () => string) {
  return {
    frameworkErrors(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
      const error =
        err.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? new ApiError(
              414,
              'invalid_request_error',
              'uri_too_long',
              `A path parameter is longer than ${MAX_PARAM_LENGTH} characters; no id is that long.`,
            )
          : new InvalidRequest('invalid_url', 'The request path is not validly percent-encoded.');
      const body = (dialectOf(request.raw.url ?? '', dialects)?.errorBody ?? openAiErrorBody)(error);
      return reply.code(error.status).header('x-request-id', request.id).send(body);
    },
    clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket) {
      if (err.code === 'ECONNRESET' || socket.destroyed) return;
      const error =
        err.code === 'HPE_HEADER_OVERFLOW'
          ? new ApiError(
              431,
              'invalid_request_error',
              'headers_too_large',
              'The request head (URL and headers) is larger than this server accepts.',
            )
          : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
            ? new ApiError(408, 'invalid_request_error', 'request_timeout', 'The request was not received in time.')
            : new InvalidRequest('invalid_request', 'The request could not be parsed as HTTP.');
      const body = JSON.stringify(openAiErrorBody(error));
      if (socket.writable) {
        socket.write(
          `HTTP/1.1 ${error.status} ${error.status === 431 ? 'Request Header Fields Too Large' : error.status === 408 ? 'Request Timeout' : 'Bad Request'}\r\n` +
            `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${nextId()}\r\nconnection: close\r\n\r\n${body}`,
        );
      }
      socket.destroy();
    },
  };
}

/** The dialect whose task routes the path belongs to (its poll path's prefix), if any. */
function dialectOf(url: string, dialects: readonly Dialect[]): Dialect | undefined {
  const path = url.split('?')[0];
  return dialects.find((d) => {
    const prefix = d.paths.poll.split(':')[0];
    return path.startsWith(prefix) && !path.endsWith('/content');
  });
}

/** The deepest nesting of arrays and objects in JSON text, counted without parsing (so without recursion). */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max) max = depth;
    } else if (c === 125 || c === 93) depth--;
  }
  return max;
}

/** The path (`prompt`, `images[2]`) of the first string or key holding a control character, '' for the body itself. */
function controlCharacterAt(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return hasNul(value) ? path : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const at = controlCharacterAt(value[i], `${path}[${i}]`);
      if (at !== undefined) return at;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      const here = path ? `${path}.${key}` : key;
      if (hasNul(key)) return here;
      const at = controlCharacterAt(v, here);
      if (at !== undefined) return at;
    }
  }
  return undefined;
}
