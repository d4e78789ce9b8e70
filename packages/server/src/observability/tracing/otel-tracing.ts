/**
 * Tracing on OpenTelemetry's SDK: spans batched and exported as OTLP/HTTP protobuf, the active span
 * kept in AsyncLocalStorage, W3C trace context in and out. Loaded by the composition with a dynamic
 * import only when tracing is configured (tracing-config.ts), so a server without it never loads the
 * SDK.
 *
 * Nothing is registered globally (no global tracer provider, context manager or propagator): each
 * service keeps its own, so two services in one process (tests) do not see each other's spans.
 */
import { hostname } from 'node:os';
import {
  type Context,
  DiagLogLevel,
  ROOT_CONTEXT,
  type Span as OtelSpanApi,
  SpanKind as OtelSpanKind,
  SpanStatusCode,
  type Attributes,
  defaultTextMapGetter,
  defaultTextMapSetter,
  diag,
  isSpanContextValid,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { Logger } from 'pino';
import { traceFetchCalls } from './fetch-spans.ts';
import type { TracingConfig } from './tracing-config.ts';
import {
  errorTypeOf,
  noTracing,
  type Span,
  type SpanAttributes,
  type SpanKind,
  type SpanOptions,
  type TraceHeaders,
  type TraceIds,
  type Tracing,
} from './tracing.ts';

export interface OtelTracingOptions {
  /** The server's version and this process's role, for the resource every span carries. */
  version: string;
  role: string;
  /** Export failures are logged here as warnings (the SDK's own diagnostics). */
  logger: Logger;
}

const KINDS: Record<SpanKind, OtelSpanKind> = {
  internal: OtelSpanKind.INTERNAL,
  server: OtelSpanKind.SERVER,
  client: OtelSpanKind.CLIENT,
  producer: OtelSpanKind.PRODUCER,
  consumer: OtelSpanKind.CONSUMER,
};

const propagator = new W3CTraceContextPropagator();
/** How long a shutdown waits for the last spans to be exported. */
const SHUTDOWN_LIMIT_MS = 5000;

/** One span of ours: the SDK's span and the context that has it active. */
class OtelSpan implements Span {
  constructor(
    readonly inner: OtelSpanApi,
    readonly context: Context,
  ) {}

  setAttributes(attributes: SpanAttributes): void {
    this.inner.setAttributes(defined(attributes));
  }

  fail(errorType: string): void {
    this.inner.setAttribute('error.type', errorType);
    this.inner.setStatus({ code: SpanStatusCode.ERROR });
  }

  end(endTime?: number): void {
    this.inner.end(endTime);
  }

  headers(): TraceHeaders {
    const carrier: Record<string, string> = {};
    propagator.inject(this.context, carrier, defaultTextMapSetter);
    return carrier;
  }

  ids(): TraceIds | undefined {
    return idsOf(this.inner);
  }
}

export function createOtelTracing(config: TracingConfig, options: OtelTracingOptions): Tracing {
  const log = options.logger.child({ component: 'tracing' });
  diag.setLogger(diagnosticsTo(log), DiagLogLevel.WARN);
  const exporter = new OTLPTraceExporter({
    url: config.endpoint,
    headers: config.headers,
    ...(config.timeoutMs !== undefined ? { timeoutMillis: config.timeoutMs } : {}),
    ...(config.compression ? { compression: config.compression as never } : {}),
  });
  const provider = new BasicTracerProvider({
    resource: defaultResource().merge(
      resourceFromAttributes({
        ...config.resourceAttributes,
        [ATTR_SERVICE_NAME]: config.serviceName,
        [ATTR_SERVICE_VERSION]: options.version,
        'service.instance.id': `${hostname()}:${process.pid}`,
        'vidgen.role': options.role,
      }),
    ),
    sampler: samplerOf(config.sampler),
    spanProcessors: [new BatchSpanProcessor(exporter, definedNumbers(config.batch))],
  });
  const tracer = provider.getTracer('vidgen', options.version);
  const contexts = new AsyncLocalStorageContextManager().enable();

  const contextOf = (parent: SpanOptions['parent']): Context => {
    if (parent === undefined) return contexts.active();
    if (parent instanceof OtelSpan) return parent.context;
    // A no-op span (made outside a trace) continues nothing.
    if (typeof (parent as Span).end === 'function') return ROOT_CONTEXT;
    return propagator.extract(ROOT_CONTEXT, parent, defaultTextMapGetter);
  };

  const tracing: Tracing = {
    enabled: true,
    startSpan(name, options = {}) {
      const parent = contextOf(options.parent);
      if (options.childOnly && !trace.getSpan(parent)) return noTracing.startSpan(name);
      const inner = tracer.startSpan(
        name,
        {
          kind: KINDS[options.kind ?? 'internal'],
          attributes: options.attributes && defined(options.attributes),
          startTime: options.startTime,
        },
        parent,
      );
      return new OtelSpan(inner, trace.setSpan(parent, inner));
    },
    async withSpan(name, options, work) {
      const span = tracing.startSpan(name, options);
      return tracing.activate(span, async () => {
        try {
          return await work(span);
        } catch (err) {
          span.fail(errorTypeOf(err));
          throw err;
        } finally {
          span.end();
        }
      });
    },
    activate(span, work) {
      return span instanceof OtelSpan ? contexts.with(span.context, work) : work();
    },
    untraced: (work) => contexts.with(ROOT_CONTEXT, work),
    headers() {
      const carrier: Record<string, string> = {};
      propagator.inject(contexts.active(), carrier, defaultTextMapSetter);
      return carrier;
    },
    activeIds() {
      const span = trace.getSpan(contexts.active());
      return span && idsOf(span);
    },
    async shutdown() {
      stopFetchSpans();
      // A collector that is down or slow must neither fail nor hold up the shutdown for long:
      // what cannot be exported within the limit is dropped, with a warning.
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          log.warn({ limitMs: SHUTDOWN_LIMIT_MS }, 'spans not exported at shutdown were dropped');
          resolve();
        }, SHUTDOWN_LIMIT_MS);
      });
      const flushed = provider.shutdown().catch((err: unknown) => {
        log.warn({ errorType: errorTypeOf(err) }, 'spans could not be exported at shutdown');
      });
      await Promise.race([flushed, limit]);
      clearTimeout(timer);
      contexts.disable();
    },
  };
  const stopFetchSpans = traceFetchCalls(tracing);
  return tracing;
}

function samplerOf({ name, ratio }: TracingConfig['sampler']): Sampler {
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

function idsOf(span: OtelSpanApi): TraceIds | undefined {
  const context = span.spanContext();
  return isSpanContextValid(context) ? { trace_id: context.traceId, span_id: context.spanId } : undefined;
}

function defined(attributes: SpanAttributes): Attributes {
  const kept: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) kept[key] = value;
  return kept;
}

function definedNumbers<T extends Record<string, number | undefined>>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The SDK's diagnostics (a failed export, a dropped span) as warnings of the server's log. */
function diagnosticsTo(log: Logger) {
  const warn = (message: string) => log.warn({ detail: message }, 'tracing');
  return { error: warn, warn, info: () => undefined, debug: () => undefined, verbose: () => undefined };
}
