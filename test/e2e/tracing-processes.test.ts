import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawnServer, runServerCommand, type ServerProcess } from './support/process.ts';
import { api, pollUntil } from './support/http.ts';
import { startWebhookReceiver } from './support/webhook-receiver.ts';
import { CALLER, assertNoSecrets, parseTraceparent, traceOf } from './support/traces.ts';
import { startOtlpReceiver, type OtlpReceiver } from '../../packages/server/test/support/otlp-receiver.ts';
import { createPostgresDatabase, type TestDatabase } from '../../packages/server/test/support/databases.ts';

// Tracing across processes, as `vidgen-server` runs: an API process and a worker process on one
// PostgreSQL database continue one trace through the task row (and its event's), and the spans of
// both reach the collector, the API's only when it shuts down (flushed then). Off, a server loads
// no module of the OpenTelemetry SDK and sends nothing, even with an endpoint set.

const RECORD_MODULES = pathToFileURL(join(import.meta.dirname, 'support', 'record-modules.mjs')).href;

describe('tracing across processes', () => {
  let otlp: OtlpReceiver;
  let dir: string;
  let catalog: string;
  const processes: ServerProcess[] = [];
  const closers: Array<() => Promise<void>> = [];
  const hookReceiver = async () => {
    const hook = await startWebhookReceiver();
    closers.push(hook.close);
    return hook;
  };

  before(async () => {
    otlp = await startOtlpReceiver();
    dir = await mkdtemp(join(tmpdir(), 'vidgen-tracing-processes-'));
    catalog = join(dir, 'models.json');
    await writeFile(
      catalog,
      JSON.stringify({
        models: [{ id: 'tiny', family: 'B', backend: 'renderer', resolution: '180p', durations: [1] }],
      }),
    );
  });
  after(async () => {
    for (const p of processes) await p.stop();
    for (const close of closers) await close();
    await otlp.close();
    await rm(dir, { recursive: true, force: true });
  });

  const dataDir = async () => mkdtemp(join(dir, 'node-'));

  it('continues one trace from an API process to a worker process on PostgreSQL, to the webhook', async (t) => {
    const database: TestDatabase | string = await createPostgresDatabase();
    if (typeof database === 'string') return t.skip(database);
    closers.push(() => database.drop());
    const shared = {
      VIDGEN_DATABASE_URL: database.location,
      VIDGEN_MODELS_FILE: catalog,
      VIDGEN_SIGNING_SECRET: 'tracing-processes-secret',
      VIDGEN_ALLOW_PRIVATE_URLS: '1',
      VIDGEN_RENDER_PRESET: 'ultrafast',
      VIDGEN_POLL_MS: '100',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
    };
    const key = (await runServerCommand(['keys', 'create', '--account', 'traced'], shared)).stdout.trim();
    // The API's spans wait in its batch until it shuts down: only the flush at shutdown sends them.
    const apiProcess = await spawnServer(
      { ...shared, VIDGEN_DATA_DIR: await dataDir(), OTEL_BSP_SCHEDULE_DELAY: '3600000' },
      ['--role', 'api'],
    );
    processes.push(apiProcess);
    processes.push(
      await spawnServer({ ...shared, VIDGEN_DATA_DIR: await dataDir(), OTEL_BSP_SCHEDULE_DELAY: '50' }, [
        '--role',
        'worker',
      ]),
    );
    const hook = await hookReceiver();
    const client = api(apiProcess.url, key);
    const prompt = 'two herons on one leg';
    const submit = await client.post(
      '/v1/video/generations',
      { model: 'tiny', prompt, callback_url: hook.url },
      { traceparent: CALLER.traceparent, tracestate: CALLER.tracestate },
    );
    assert.equal(submit.status, 200, JSON.stringify(submit.body));
    await pollUntil(
      () => client.get(`/v1/video/generations/${submit.body.task_id}`),
      (a) => a.body.status === 'SUCCESS',
    );
    await hook.until((all) => all.length > 0);
    const worker = ['task.claim', 'task.attempt', 'ffmpeg.render', 'blob.put', 'task.complete', 'webhook.deliver'];
    await otlp.until((spans) => {
      const trace = traceOf(spans, CALLER.traceId);
      return worker.every((name) => trace.named(name).length > 0) && trace.named('POST').length > 0;
    });
    assert.equal(traceOf(otlp.spans, CALLER.traceId).named('task.enqueue').length, 0, 'the API has sent nothing yet');

    assert.ok(
      apiProcess.lines.join('').includes(`tracing on (OTLP to ${otlp.endpoint})`),
      'the start-up text says where traces go',
    );
    await apiProcess.stop();
    await otlp.until((spans) => traceOf(spans, CALLER.traceId).linked(CALLER.spanId));
    const trace = traceOf(otlp.spans, CALLER.traceId);
    trace.assertLinked(CALLER.spanId);
    const server = trace.one('POST /v1/video/generations');
    const enqueue = trace.one('task.enqueue');
    const claim = trace.one('task.claim');
    trace.assertChild(enqueue, server);
    // Across processes: the worker's claim is the child of the API's enqueue, through the task row.
    trace.assertChild(claim, enqueue);
    assert.equal(server.resource['vidgen.role'], 'api');
    assert.equal(claim.resource['vidgen.role'], 'worker');
    assert.notEqual(server.resource['service.instance.id'], claim.resource['service.instance.id']);

    const insert = trace.named('INSERT tasks').find((s) => s.parentSpanId === enqueue.spanId);
    assert.ok(insert, `the insert is the enqueue's child: ${trace.describe()}`);
    const db = new URL(database.location);
    assert.equal(insert.attributes['db.system.name'], 'postgresql');
    assert.equal(insert.attributes['db.namespace'], db.pathname.slice(1));
    assert.equal(insert.attributes['server.address'], db.hostname);
    assert.equal(insert.attributes['server.port'], Number(db.port || 5432));

    const attempt = trace.one('task.attempt');
    trace.assertChild(attempt, claim);
    const complete = trace.one('task.complete');
    trace.assertChild(complete, attempt);
    const deliver = trace.one('webhook.deliver');
    trace.assertChild(deliver, complete);
    const post = trace.named('POST').find((s) => s.parentSpanId === deliver.spanId)!;
    assert.deepEqual(parseTraceparent(hook.received[0].headers.traceparent), {
      traceId: CALLER.traceId,
      spanId: post.spanId,
    });
    // Not the key, the prompt, the signing secret, nor the database URL (which may hold a password).
    assertNoSecrets(trace.spans, [key, prompt, 'tracing-processes-secret', 'postgres://']);
  });

  it('with tracing off, loads no OpenTelemetry SDK module and sends nothing', async () => {
    // A collector of its own, named by the second server, which must still send it nothing.
    const quiet = await startOtlpReceiver();
    closers.push(quiet.close);
    const offs: Array<Record<string, string>> = [
      {},
      { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: quiet.endpoint },
    ];
    for (const tracingOff of offs) {
      const modules = join(dir, `modules-${Object.keys(tracingOff).length}.txt`);
      await writeFile(modules, '');
      const env = {
        ...tracingOff,
        OTEL_SERVICE_NAME: 'not-traced',
        VIDGEN_DATA_DIR: await dataDir(),
        VIDGEN_MODELS_FILE: catalog,
        VIDGEN_ALLOW_PRIVATE_URLS: '1',
        VIDGEN_RENDER_PRESET: 'ultrafast',
        VIDGEN_POLL_MS: '100',
        NODE_OPTIONS: `--import=${RECORD_MODULES}`,
        VIDGEN_TEST_MODULES_FILE: modules,
      };
      const key = (await runServerCommand(['keys', 'create', '--account', 'untraced'], env)).stdout.trim();
      const server = await spawnServer(env);
      processes.push(server);
      const hook = await hookReceiver();
      const client = api(server.url, key);
      const submit = await client.post(
        '/v1/video/generations',
        { model: 'tiny', prompt: 'untraced', callback_url: hook.url },
        { traceparent: CALLER.traceparent },
      );
      assert.equal(submit.status, 200, JSON.stringify(submit.body));
      await pollUntil(
        () => client.get(`/v1/video/generations/${submit.body.task_id}`),
        (a) => a.body.status === 'SUCCESS',
      );
      await hook.until((all) => all.length > 0);
      await server.stop();

      assert.equal(hook.received[0].headers.traceparent, undefined, 'the receiver gets no trace context');
      assert.ok(!server.lines.some((l) => l.includes('"trace_id"')), 'no log line names a trace');
      const loaded = (await readFile(modules, 'utf8')).split('\n').filter(Boolean);
      assert.ok(
        loaded.some((m) => m.includes('fastify')),
        'the module list was recorded',
      );
      // prom-client's default metrics require @opentelemetry/api themselves (with or without tracing):
      // the API alone records nothing; the SDK, exporter and context manager are what tracing adds.
      assert.deepEqual(
        loaded.filter((m) => /@opentelemetry[\\/](?!api[\\/])/.test(m)),
        [],
        'no OpenTelemetry SDK module was loaded',
      );
    }
    assert.equal(quiet.requests.length, 0, 'nothing was sent');
  });
});
