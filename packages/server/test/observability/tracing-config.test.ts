import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { tracingConfigFrom } from '../../src/observability/tracing/tracing-config.ts';
import { parseTraceContext, storedTraceContext } from '../../src/observability/tracing/tracing.ts';

// Tracing's settings come from the standard OTEL_* variables of the environment the service is given.
describe('tracing configuration', () => {
  it('is off without an endpoint, and when the SDK is disabled or the exporter is none', () => {
    assert.equal(tracingConfigFrom({}), undefined);
    assert.equal(tracingConfigFrom({ OTEL_SERVICE_NAME: 'vidgen', OTEL_BSP_SCHEDULE_DELAY: '50' }), undefined);
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    assert.equal(tracingConfigFrom({ ...endpoint, OTEL_SDK_DISABLED: 'TRUE' }), undefined);
    assert.equal(tracingConfigFrom({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' }), undefined);
    assert.ok(tracingConfigFrom({ ...endpoint, OTEL_SDK_DISABLED: 'false' }));
  });

  it('sends to the traces path of the base endpoint, or to the traces endpoint as given', () => {
    assert.equal(
      tracingConfigFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })?.endpoint,
      'http://collector:4318/v1/traces',
    );
    assert.equal(
      tracingConfigFrom({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ignored:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/otlp/spans',
      })?.endpoint,
      'https://traces.example/otlp/spans',
    );
    assert.equal(tracingConfigFrom({ OTEL_TRACES_EXPORTER: 'otlp' })?.endpoint, 'http://localhost:4318/v1/traces');
  });

  it('reads the service name, resource attributes, headers, sampler and batch settings', () => {
    const config = tracingConfigFrom({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-resource,deployment.environment.name=prod%20eu',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20abc,x-team=video',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-team=traces',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
    });
    assert.ok(config);
    assert.equal(config.serviceName, 'from-resource');
    assert.deepEqual(config.resourceAttributes, { 'deployment.environment.name': 'prod eu' });
    assert.deepEqual(config.headers, { authorization: 'Bearer abc', 'x-team': 'traces' });
    assert.deepEqual(config.sampler, { name: 'parentbased_traceidratio', ratio: 0.25 });
    assert.equal(config.batch.scheduledDelayMillis, 50);
    assert.equal(config.batch.maxQueueSize, undefined, 'unset: the SDK default');
    assert.equal(config.compression, 'gzip');
    const named = tracingConfigFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SERVICE_NAME: 'video' });
    assert.equal(named?.serviceName, 'video');
    assert.equal(tracingConfigFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })?.serviceName, 'vidgen');
  });

  it('refuses what it cannot honour, naming the variable and never a header value', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    const refusals: Array<[Record<string, string>, RegExp]> = [
      [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, /http\(s\) URL/],
      [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'file:///tmp/spans' }, /http\(s\) URL/],
      [{ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, /http\/protobuf/],
      [{ ...endpoint, OTEL_TRACES_EXPORTER: 'zipkin' }, /OTEL_TRACES_EXPORTER/],
      [{ ...endpoint, OTEL_TRACES_SAMPLER: 'sometimes' }, /OTEL_TRACES_SAMPLER/],
      [{ ...endpoint, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' }, /SAMPLER_ARG/],
      [{ ...endpoint, OTEL_BSP_SCHEDULE_DELAY: 'soon' }, /OTEL_BSP_SCHEDULE_DELAY/],
      [{ ...endpoint, OTEL_EXPORTER_OTLP_COMPRESSION: 'zstd' }, /COMPRESSION/],
    ];
    for (const [env, message] of refusals) assert.throws(() => tracingConfigFrom(env), message);
    assert.throws(
      () => tracingConfigFrom({ ...endpoint, OTEL_EXPORTER_OTLP_HEADERS: 'secret-token-without-a-name' }),
      (err: Error) => /OTEL_EXPORTER_OTLP_HEADERS/.test(err.message) && !err.message.includes('secret-token'),
    );
  });
});

describe('stored trace context', () => {
  it('keeps the W3C headers, and reads back nothing from null or anything unreadable', () => {
    const headers = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', tracestate: 'a=1' };
    assert.deepEqual(parseTraceContext(storedTraceContext(headers)), headers);
    assert.equal(storedTraceContext({}), null, 'tracing off: nothing stored');
    assert.deepEqual(parseTraceContext(null), {});
    assert.deepEqual(parseTraceContext('not json'), {});
    assert.deepEqual(parseTraceContext('{"traceparent":5,"other":"x"}'), {});
  });
});
