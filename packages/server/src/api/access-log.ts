import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import pino, { type Logger } from 'pino';
import type { TraceIds } from '../observability/tracing/tracing.ts';

/**
 * Request logging: one line per answered request (method, path, status, milliseconds), written
 * when the answer is sent, instead of Fastify's two (one on arrival, one on completion). With the
 * access log off, only failed requests are logged; held long-polls log at debug. Query strings, which carry signed-link
 * secrets, are never logged. Fastify's other lines (stream errors, serializer failures) are kept.
 *
 * A successful request's line is put together here rather than by pino: it is the same JSON
 * pino writes with its default keys (level, time, the logger's bindings, `req`, `res`, `ms`,
 * `msg`), into the same destination, but without pino's generic serializing, which cost a poll
 * about 6 µs of CPU (docs/performance.md). Errors go through pino as before.
 */
export class AccessLog extends LogController {
  /** Where lines go, and the bindings (pid, hostname) every line starts with, as pino holds them. */
  private readonly destination: { write(line: string): void };
  private readonly bindings: string;

  constructor(
    private readonly logger: Logger,
    private readonly everyRequest: boolean,
    /** With tracing on: the ids of a request's span, which its lines carry (docs/observability.md). */
    private readonly traceOf?: (request: FastifyRequest) => TraceIds | undefined,
  ) {
    super();
    const internals = logger as unknown as Record<symbol, unknown>;
    this.destination = internals[streamSym] as { write(line: string): void };
    this.bindings = internals[chindingsSym] as string;
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const ms = Math.round(reply.elapsedTime * 10) / 10;
    if (error)
      request.log.error({ req: request, res: reply, err: error, ms, ...this.traceOf?.(request) }, 'request errored');
    else if (!this.everyRequest) return;
    // A held poll (`?wait=`) is logged at debug: an open console holds one per task around the
    // clock, and at info their lines drowned everything else. Failed ones still log at info.
    else if (reply.statusCode < 400 && reply.hasHeader('x-vidgen-long-poll')) {
      if (this.logger.isLevelEnabled('debug')) this.writeCompleted(request, reply.statusCode, ms, DEBUG);
    } else if (this.logger.isLevelEnabled('info')) this.writeCompleted(request, reply.statusCode, ms, INFO);
  }

  /** The line pino would write from the request's logger (its `reqId` binding included), without making that logger. */
  private writeCompleted(request: FastifyRequest, statusCode: number, ms: number, level: number): void {
    const { url } = request;
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    const id = quoted(request.id);
    const trace = this.traceOf?.(request);
    // Trace and span ids are hex, written as they are.
    const ids = trace ? `,"trace_id":"${trace.trace_id}","span_id":"${trace.span_id}"` : '';
    this.destination.write(
      `{"level":${level},"time":${Date.now()}${this.bindings},"reqId":${id},` +
        `"req":{"id":${id},"method":"${request.method}","path":${quoted(path)}},` +
        `"res":{"statusCode":${statusCode}},"ms":${ms}${ids},"msg":"request completed"}\n`,
    );
  }
}

const { chindingsSym, streamSym } = pino.symbols;
const INFO = 30;
const DEBUG = 20;

/** Text JSON holds between quotes as it is: printable ASCII, but for `"` and backslash. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
const quoted = (text: string) => (PLAIN.test(text) ? `"${text}"` : JSON.stringify(text));
