import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import protobuf from 'protobufjs';

/** One span as a collector would store it, decoded from the OTLP protobuf the server sent. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  traceState: string;
  name: string;
  kind: 'INTERNAL' | 'SERVER' | 'CLIENT' | 'PRODUCER' | 'CONSUMER' | 'UNSPECIFIED';
  startNanos: bigint;
  endNanos: bigint;
  attributes: Record<string, string | number | boolean>;
  status: 'UNSET' | 'OK' | 'ERROR';
  /** The resource of the process that made it (service.name, service.instance.id, vidgen.role). */
  resource: Record<string, string | number | boolean>;
}

const PROTO_ROOT = fileURLToPath(new URL('./otlp-proto/', import.meta.url));

/** The OTLP trace messages, read from opentelemetry-proto's definitions (otlp-proto/). */
function exportRequestType(): protobuf.Type {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => join(PROTO_ROOT, target);
  root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto', { keepCase: true });
  return root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
}

/**
 * An OTLP/HTTP collector on loopback: `POST /v1/traces` with a protobuf body (gzip or not), decoded
 * with the official schema, answered 200 with an empty ExportTraceServiceResponse. Any other path or
 * content type is answered 415/404 and counted, so a test sees an exporter that sent the wrong thing.
 */
export async function startOtlpReceiver() {
  const Request = exportRequestType();
  const spans: ReceivedSpan[] = [];
  const requests: Array<{ headers: IncomingHttpHeaders; path: string }> = [];
  const refused: string[] = [];
  const waiters = new Set<() => void>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ headers: req.headers, path: req.url ?? '' });
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        refused.push(`${req.method} ${req.url}`);
        return void res.writeHead(404).end();
      }
      if (req.headers['content-type'] !== 'application/x-protobuf') {
        refused.push(`content-type ${req.headers['content-type']}`);
        return void res.writeHead(415).end();
      }
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      spans.push(...decode(Request, body));
      for (const wake of waiters) wake();
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    /** OTEL_EXPORTER_OTLP_ENDPOINT: the exporter adds /v1/traces. */
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    requests,
    refused,
    /** Resolves once `done(spans)` holds: no clock, the test waits for what it needs. */
    until(done: (all: ReceivedSpan[]) => boolean): Promise<void> {
      return new Promise((resolve) => {
        const check = () => {
          if (!done(spans)) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      });
    },
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

export type OtlpReceiver = Awaited<ReturnType<typeof startOtlpReceiver>>;

const KINDS = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'] as const;
const STATUSES = ['UNSET', 'OK', 'ERROR'] as const;

interface AnyValue {
  /** Which of the oneof's fields is set (protobufjs's `oneofs` option). */
  value?: 'string_value' | 'bool_value' | 'int_value' | 'double_value' | string;
  string_value?: string;
  bool_value?: boolean;
  int_value?: string;
  double_value?: number;
}
interface KeyValue {
  key: string;
  value?: AnyValue;
}

function decode(Request: protobuf.Type, body: Buffer): ReceivedSpan[] {
  const message = Request.toObject(Request.decode(body), { longs: String, enums: Number, bytes: Buffer, oneofs: true });
  const out: ReceivedSpan[] = [];
  for (const resourceSpans of (message.resource_spans ?? []) as any[]) {
    const resource = attributesOf(resourceSpans.resource?.attributes ?? []);
    for (const scopeSpans of (resourceSpans.scope_spans ?? []) as any[]) {
      for (const span of (scopeSpans.spans ?? []) as any[]) {
        out.push({
          traceId: hex(span.trace_id),
          spanId: hex(span.span_id),
          parentSpanId: hex(span.parent_span_id),
          traceState: span.trace_state ?? '',
          name: span.name,
          kind: KINDS[span.kind ?? 0],
          startNanos: BigInt(span.start_time_unix_nano ?? 0),
          endNanos: BigInt(span.end_time_unix_nano ?? 0),
          attributes: attributesOf(span.attributes ?? []),
          status: STATUSES[span.status?.code ?? 0],
          resource,
        });
      }
    }
  }
  return out;
}

function attributesOf(list: KeyValue[]): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of list) {
    if (value?.value === 'string_value') out[key] = value.string_value ?? '';
    else if (value?.value === 'int_value') out[key] = Number(value.int_value);
    else if (value?.value === 'double_value') out[key] = value.double_value ?? 0;
    else if (value?.value === 'bool_value') out[key] = value.bool_value ?? false;
  }
  return out;
}

function hex(bytes: Buffer | Uint8Array | undefined): string {
  return bytes ? Buffer.from(bytes).toString('hex') : '';
}
