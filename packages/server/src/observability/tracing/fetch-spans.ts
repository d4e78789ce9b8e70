/**
 * HTTP client spans for the server's `fetch` calls, which go only to upstreams the operator
 * configured: relay channels (their API and the video links on their own origin) and ComfyUI hosts.
 * User-supplied URLs (input images and videos, webhooks) go through the SSRF-safe fetcher on
 * node:http instead, which this never sees: a third party gets no trace context from here.
 *
 * Node's fetch (undici) announces each request on diagnostics channels, in the async context of
 * the caller, so the span is a child of whatever span the call was made in, and its `traceparent`
 * is added to the request before it is sent. Only inside a trace: a fetch made outside one is left
 * alone. The span ends when the answer's headers arrive (or the request fails): the body belongs to
 * the caller's own span (a download's).
 */
import diagnostics from 'node:diagnostics_channel';
import type { Span, SpanAttributes, Tracing } from './tracing.ts';

/** What undici's request objects offer on its diagnostics channels (Node 18 and later). */
interface UndiciRequest {
  origin: string | URL;
  method: string;
  path: string;
  addHeader(name: string, value: string): unknown;
}

const CHANNELS = {
  create: 'undici:request:create',
  headers: 'undici:request:headers',
  error: 'undici:request:error',
} as const;

/** Subscribes; the function returned unsubscribes. */
export function traceFetchCalls(tracing: Tracing): () => void {
  const spans = new WeakMap<UndiciRequest, Span>();
  const onCreate = (message: unknown) => {
    const { request } = message as { request: UndiciRequest };
    const span = tracing.startSpan(request.method, {
      kind: 'client',
      childOnly: true,
      attributes: clientAttributes(request),
    });
    const headers = span.headers();
    if (!headers.traceparent) return;
    spans.set(request, span);
    for (const [name, value] of Object.entries(headers)) request.addHeader(name, value);
  };
  const onHeaders = (message: unknown) => {
    const { request, response } = message as { request: UndiciRequest; response: { statusCode: number } };
    const span = spans.get(request);
    if (!span) return;
    spans.delete(request);
    span.setAttributes({ 'http.response.status_code': response.statusCode });
    // For a client, any answer of 400 or more is an error (the semantic conventions' rule).
    if (response.statusCode >= 400) span.fail(String(response.statusCode));
    span.end();
  };
  const onError = (message: unknown) => {
    const { request, error } = message as { request: UndiciRequest; error: unknown };
    const span = spans.get(request);
    if (!span) return;
    spans.delete(request);
    span.fail(errorTypeOfFetch(error));
    span.end();
  };
  diagnostics.subscribe(CHANNELS.create, onCreate);
  diagnostics.subscribe(CHANNELS.headers, onHeaders);
  diagnostics.subscribe(CHANNELS.error, onError);
  return () => {
    diagnostics.unsubscribe(CHANNELS.create, onCreate);
    diagnostics.unsubscribe(CHANNELS.headers, onHeaders);
    diagnostics.unsubscribe(CHANNELS.error, onError);
  };
}

/**
 * `url.full` without the query string: upstream links carry signatures there (presigned
 * buckets, CDN tokens), and a relay's poll carries nothing a trace needs.
 */
function clientAttributes(request: UndiciRequest): SpanAttributes {
  const origin = new URL(String(request.origin));
  const query = request.path.indexOf('?');
  const path = query === -1 ? request.path : request.path.slice(0, query);
  const port = origin.port ? Number(origin.port) : origin.protocol === 'https:' ? 443 : 80;
  return {
    'http.request.method': request.method,
    'url.full': `${origin.origin}${path}`,
    'server.address': origin.hostname,
    'server.port': port,
  };
}

function errorTypeOfFetch(error: unknown): string {
  const e = error as { code?: unknown; name?: unknown } | undefined;
  if (typeof e?.code === 'string') return e.code;
  return typeof e?.name === 'string' ? e.name : 'Error';
}
