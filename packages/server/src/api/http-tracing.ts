import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Span, TraceIds, Tracing } from '../observability/tracing/tracing.ts';

/** Longest `user_agent.original` kept: the header is the caller's to make as long as it likes. */
const MAX_USER_AGENT = 256;
/**
 * Probes and scrapes, every few seconds from every orchestrator and Prometheus: a trace each would
 * bury the tasks' traces. Traced only when the caller sends a `traceparent` (it asked for one).
 */
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

export interface HttpSpans {
  /** Adds the hooks that make, activate and end each request's span. */
  install(app: FastifyInstance): void;
  /** The ids of a request's span, for its log lines (api/access-log.ts). */
  idsOf(request: FastifyRequest): TraceIds | undefined;
}

/**
 * A server span per request, following the semantic conventions for HTTP servers (docs/observability.md):
 * it continues the caller's trace when the request carries a W3C `traceparent` (and `tracestate`),
 * and is the active span while the hooks and the handler run, so what they do is its child. Never
 * recorded: the query string (signed links carry their signature there), headers (keys), bodies.
 * Used only when tracing is on.
 */
export function httpSpans(tracing: Tracing): HttpSpans {
  const spans = new WeakMap<FastifyRequest, Span>();
  return { install: (app) => install(app, tracing, spans), idsOf: (request) => spans.get(request)?.ids() };
}

function install(app: FastifyInstance, tracing: Tracing, spans: WeakMap<FastifyRequest, Span>): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url;
    if (route && PROBES.has(route) && request.headers.traceparent === undefined) return done();
    const span = tracing.startSpan(route ? `${request.method} ${route}` : request.method, {
      kind: 'server',
      parent: incomingContext(request),
      attributes: {
        'http.request.method': request.method,
        'http.route': route,
        'url.path': pathOf(request.url),
        'url.scheme': request.protocol,
        'server.address': request.hostname,
        'server.port': request.port ?? undefined,
        'network.protocol.version': request.raw.httpVersion,
        'client.address': request.ip,
        'user_agent.original': request.headers['user-agent']?.slice(0, MAX_USER_AGENT),
        'vidgen.request_id': request.id,
      },
    });
    spans.set(request, span);
    tracing.activate(span, done);
  });
  // The body arrives on the socket's events, outside the span's context: the handler gets it back.
  app.addHook('preHandler', (request, _reply, done) => {
    const span = spans.get(request);
    if (span) tracing.activate(span, done);
    else done();
  });
  // The span stays known after it ends: the access log line, written after onResponse, carries its ids.
  const ended = new WeakSet<FastifyRequest>();
  const end = (request: FastifyRequest, finish: (span: Span) => void) => {
    const span = spans.get(request);
    if (!span || ended.has(request)) return;
    ended.add(request);
    finish(span);
    span.end();
  };
  app.addHook('onResponse', (request, reply, done) => {
    end(request, (span) => {
      span.setAttributes({ 'http.response.status_code': reply.statusCode });
      // For a server, only its own failures (5xx) are errors; a 4xx is the caller's.
      if (reply.statusCode >= 500) span.fail(String(reply.statusCode));
    });
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    end(request, (span) => span.fail('aborted'));
    done();
  });
}

/** The caller's trace context: only the two W3C headers, each a single string (a repeated one is refused). */
function incomingContext(request: FastifyRequest): Record<string, string> {
  const { traceparent, tracestate } = request.headers;
  const headers: Record<string, string> = {};
  if (typeof traceparent === 'string') headers.traceparent = traceparent;
  if (typeof traceparent === 'string' && typeof tracestate === 'string') headers.tracestate = tracestate;
  return headers;
}

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
