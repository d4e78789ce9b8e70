/**
 * Distributed tracing as the rest of the server sees it (docs/observability.md): spans, the active
 * span, and W3C trace context to carry across processes. Off, `noTracing` answers everything
 * without allocating; on, the OpenTelemetry implementation (otel-tracing.ts) is loaded by the
 * composition. Nothing here imports OpenTelemetry, so a server without tracing never loads it.
 */

export type SpanKind = 'internal' | 'server' | 'client' | 'producer' | 'consumer';

/** Attribute values; undefined ones are left out. Never secrets: no keys, no signed query strings, no prompts. */
export type SpanAttributes = Record<string, string | number | boolean | undefined>;

/**
 * W3C trace context as headers (`traceparent`, and `tracestate` when there is one): what a request
 * carries in, what is sent on, and what a task and an event keep in the database.
 */
export type TraceHeaders = Readonly<Record<string, string>>;

/** The ids log lines carry, as OpenTelemetry's log data model names them. */
export type TraceIds = {
  trace_id: string;
  span_id: string;
};

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: SpanAttributes;
  /**
   * The span continues this one instead of the active span: a span made earlier, or trace context
   * from headers (a caller's request, what a task or event stored). Headers without a valid
   * `traceparent` start a new trace.
   */
  parent?: Span | TraceHeaders;
  /** Epoch milliseconds, for a span whose work began before it could be made (a claim). */
  startTime?: number;
  /**
   * Made only inside a trace: with no parent and no active span this is a no-op span. For work done
   * at every tick, such as database statements and idle claims, which would be a trace each.
   */
  childOnly?: boolean;
}

export interface Span {
  setAttributes(attributes: SpanAttributes): void;
  /**
   * Marks the span failed with a low-cardinality `error.type` (a failure code, a status). No message is
   * recorded: error texts can carry URLs, keys or prompts.
   */
  fail(errorType: string): void;
  /** Ends the span; only the first call counts. */
  end(endTime?: number): void;
  /** This span as W3C headers, to store or send; empty for a no-op span. */
  headers(): TraceHeaders;
  /** For log lines; undefined for a no-op span. */
  ids(): TraceIds | undefined;
}

export interface Tracing {
  /** False for `noTracing`: callers may skip building attributes nobody records. */
  readonly enabled: boolean;
  /** A span, child of `options.parent` or else of the active span; not made active. */
  startSpan(name: string, options?: SpanOptions): Span;
  /**
   * Runs `work` with a new span active (so what it does, awaited or not, is its child), ends the
   * span when `work` settles, and fails it with `errorTypeOf(err)` when `work` throws.
   */
  withSpan<T>(name: string, options: SpanOptions | undefined, work: (span: Span) => Promise<T>): Promise<T>;
  /** Runs `work` with `span` active: for callback-style code (a framework's `done`). */
  activate<T>(span: Span, work: () => T): T;
  /** Runs `work` outside any trace: what it does makes no spans (progress writes, a hundred per render). */
  untraced<T>(work: () => T): T;
  /** The active span as W3C headers, to send along; empty outside a trace. */
  headers(): TraceHeaders;
  /** Ids of the active span, for log lines; undefined outside a trace. */
  activeIds(): TraceIds | undefined;
  /** Exports what is still buffered, then stops. */
  shutdown(): Promise<void>;
}

const NO_HEADERS: TraceHeaders = Object.freeze({});

const NO_SPAN: Span = Object.freeze({
  setAttributes: () => undefined,
  fail: () => undefined,
  end: () => undefined,
  headers: () => NO_HEADERS,
  ids: () => undefined,
});

/** Tracing off: no span is made, no context is kept, nothing is sent. */
export const noTracing: Tracing = Object.freeze({
  enabled: false,
  startSpan: () => NO_SPAN,
  withSpan: <T>(_name: string, _options: SpanOptions | undefined, work: (span: Span) => Promise<T>) => work(NO_SPAN),
  activate: <T>(_span: Span, work: () => T) => work(),
  untraced: <T>(work: () => T) => work(),
  headers: () => NO_HEADERS,
  activeIds: () => undefined,
  shutdown: async () => undefined,
});

/**
 * The `error.type` of a thrown value: its stable code where it has one (a task failure's, a fetch
 * refusal's, a system error's), else its class name. Never its message.
 */
export function errorTypeOf(err: unknown): string {
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && code.length > 0 && code.length <= 64) return code;
  if (err instanceof Error) return err.name || 'Error';
  return typeof err;
}

/** What the database keeps of a span: its headers as JSON, or null when there are none (tracing off). */
export function storedTraceContext(headers: TraceHeaders): string | null {
  return headers.traceparent ? JSON.stringify(headers) : null;
}

/** Headers back from what `storedTraceContext` wrote; empty for null or anything unreadable. */
export function parseTraceContext(stored: string | null | undefined): TraceHeaders {
  if (!stored) return NO_HEADERS;
  try {
    const parsed: unknown = JSON.parse(stored);
    if (!parsed || typeof parsed !== 'object') return NO_HEADERS;
    const headers: Record<string, string> = {};
    for (const name of ['traceparent', 'tracestate'])
      if (typeof (parsed as Record<string, unknown>)[name] === 'string')
        headers[name] = (parsed as Record<string, string>)[name];
    return headers;
  } catch {
    return NO_HEADERS;
  }
}

/** The trace id of a `traceparent` (`00-<trace id>-<span id>-<flags>`); undefined when there is none. */
export function traceIdOf(traceparent: string | undefined): string | undefined {
  return traceparent?.split('-')[1];
}
