/**
 * Tracing's settings, read from the standard OpenTelemetry variables (the SDK environment
 * specification) of the environment the service was given, not `process.env`, so a test's service
 * gets its own. Tracing is on only when a traces endpoint is named (or OTEL_TRACES_EXPORTER=otlp asks
 * for the default one) and OTEL_SDK_DISABLED is not true: otherwise the server loads no
 * OpenTelemetry module at all (docs/observability.md).
 */

type Env = Record<string, string | undefined>;

export type SamplerName =
  | 'always_on'
  | 'always_off'
  | 'traceidratio'
  | 'parentbased_always_on'
  | 'parentbased_always_off'
  | 'parentbased_traceidratio';

export interface TracingConfig {
  /** The OTLP/HTTP traces URL spans are POSTed to as protobuf. */
  endpoint: string;
  /** Sent with every export (a collector's token): never logged. */
  headers: Record<string, string>;
  timeoutMs?: number;
  compression?: 'gzip' | 'none';
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES, service.name taken out. */
  resourceAttributes: Record<string, string>;
  sampler: { name: SamplerName; ratio: number };
  /** The batch span processor's settings (OTEL_BSP_*); unset ones keep the SDK's defaults. */
  batch: {
    scheduledDelayMillis?: number;
    exportTimeoutMillis?: number;
    maxQueueSize?: number;
    maxExportBatchSize?: number;
  };
}

/** Where OTLP/HTTP listens by default (the specification's, and a collector's). */
const DEFAULT_ENDPOINT = 'http://localhost:4318/v1/traces';
const SAMPLERS: readonly SamplerName[] = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
];

/** The tracing settings, or undefined when tracing is off. Throws on a value it cannot honour. */
export function tracingConfigFrom(env: Env): TracingConfig | undefined {
  const value = (name: string) => env[name]?.trim() || undefined;
  if (value('OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return undefined;
  const exporters = value('OTEL_TRACES_EXPORTER')
    ?.split(',')
    .map((e) => e.trim().toLowerCase());
  if (exporters?.includes('none')) return undefined;
  if (exporters && exporters.some((e) => e !== 'otlp'))
    throw new Error(`OTEL_TRACES_EXPORTER must be otlp or none, got "${env.OTEL_TRACES_EXPORTER}"`);
  const endpoint =
    value('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ??
    withTracesPath(value('OTEL_EXPORTER_OTLP_ENDPOINT')) ??
    (exporters ? DEFAULT_ENDPOINT : undefined);
  if (!endpoint) return undefined;
  checkEndpoint(endpoint);
  const protocol = value('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? value('OTEL_EXPORTER_OTLP_PROTOCOL');
  if (protocol && protocol !== 'http/protobuf')
    throw new Error(`vidgen exports traces as OTLP http/protobuf; OTEL_EXPORTER_OTLP_PROTOCOL is "${protocol}"`);
  const compression = value('OTEL_EXPORTER_OTLP_TRACES_COMPRESSION') ?? value('OTEL_EXPORTER_OTLP_COMPRESSION');
  if (compression && compression !== 'gzip' && compression !== 'none')
    throw new Error(`OTEL_EXPORTER_OTLP_COMPRESSION must be gzip or none, got "${compression}"`);
  const resource = keyValues(value('OTEL_RESOURCE_ATTRIBUTES'), 'OTEL_RESOURCE_ATTRIBUTES');
  const serviceName = value('OTEL_SERVICE_NAME') ?? resource['service.name'] ?? 'vidgen';
  delete resource['service.name'];
  const number = (name: string, min: number) => {
    const raw = value(name);
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < min) throw new Error(`${name} must be a number ≥ ${min}, got "${raw}"`);
    return n;
  };
  const sampler = (value('OTEL_TRACES_SAMPLER')?.toLowerCase() ?? 'parentbased_always_on') as SamplerName;
  if (!SAMPLERS.includes(sampler))
    throw new Error(`OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(', ')}, got "${env.OTEL_TRACES_SAMPLER}"`);
  const ratio = sampler.endsWith('traceidratio') ? (number('OTEL_TRACES_SAMPLER_ARG', 0) ?? 1) : 1;
  if (ratio > 1) throw new Error(`OTEL_TRACES_SAMPLER_ARG must be from 0 to 1, got "${env.OTEL_TRACES_SAMPLER_ARG}"`);
  return {
    endpoint,
    headers: {
      ...keyValues(value('OTEL_EXPORTER_OTLP_HEADERS'), 'OTEL_EXPORTER_OTLP_HEADERS'),
      ...keyValues(value('OTEL_EXPORTER_OTLP_TRACES_HEADERS'), 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'),
    },
    timeoutMs: number('OTEL_EXPORTER_OTLP_TRACES_TIMEOUT', 1) ?? number('OTEL_EXPORTER_OTLP_TIMEOUT', 1),
    compression: compression as TracingConfig['compression'],
    serviceName,
    resourceAttributes: resource,
    sampler: { name: sampler, ratio },
    batch: {
      scheduledDelayMillis: number('OTEL_BSP_SCHEDULE_DELAY', 0),
      exportTimeoutMillis: number('OTEL_BSP_EXPORT_TIMEOUT', 1),
      maxQueueSize: number('OTEL_BSP_MAX_QUEUE_SIZE', 1),
      maxExportBatchSize: number('OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 1),
    },
  };
}

/** The general endpoint is a base: traces go to its `/v1/traces` (the specification's rule). */
function withTracesPath(base: string | undefined): string | undefined {
  if (!base) return undefined;
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

function checkEndpoint(endpoint: string): void {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new Error(`the OTLP traces endpoint must be an http(s) URL, got "${endpoint}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`the OTLP traces endpoint must be an http(s) URL, got "${endpoint}"`);
}

/** `key1=value1,key2=value2`, each side percent-decoded (W3C baggage format, as the specification says). */
function keyValues(text: string | undefined, name: string): Record<string, string> {
  const pairs: Record<string, string> = {};
  if (!text) return pairs;
  for (const item of text.split(',')) {
    if (!item.trim()) continue;
    const at = item.indexOf('=');
    // The value may hold a token: the message names the variable, never the text.
    if (at <= 0) throw new Error(`${name} must be a list of key=value pairs`);
    try {
      pairs[decodeURIComponent(item.slice(0, at).trim())] = decodeURIComponent(item.slice(at + 1).trim());
    } catch {
      throw new Error(`${name} has a value that is not percent-encoded correctly`);
    }
  }
  return pairs;
}
