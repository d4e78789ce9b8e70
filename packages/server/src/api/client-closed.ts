import type { FastifyRequest } from 'fastify';

/**
 * What a request stream fails with when its client goes away before the body is in: Node's
 * `aborted` (code ECONNRESET, from `abortIncoming` in node:_http_server), a stream piped from it
 * that closed early, or a write to a socket that is gone.
 */
const ABORT_CODES = new Set(['ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE']);

function isAbortError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if ((typeof code === 'string' && ABORT_CODES.has(code)) || message === 'aborted') return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Whether a request failed because its client closed the connection: the socket is gone, and the
 * body was cut short or the failure is the stream's own abort. The socket errors of a request
 * stream carry the same codes as a lost database connection (ECONNRESET), so without this a
 * client that leaves mid-upload would be reported as a storage fault. A fault met after the
 * whole body arrived stays a fault, whoever is still listening.
 */
export function clientClosed(request: FastifyRequest, err: unknown): boolean {
  const raw = request.raw;
  const gone = raw.socket?.destroyed === true || raw.readableAborted;
  return gone && (!raw.complete || isAbortError(err));
}
