import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestService, type TestService } from './support/service.ts';
import { api, pollUntil } from './support/http.ts';
import { startWebhookReceiver } from './support/webhook-receiver.ts';
import { CALLER, Trace, assertNoSecrets, parseTraceparent, traceOf } from './support/traces.ts';
import { startOtlpReceiver, type OtlpReceiver } from '../../packages/server/test/support/otlp-receiver.ts';
import { ComfyUiStandIn } from '../../packages/server/test/support/comfyui-standin/comfyui-standin.ts';
import { resolveFfmpegBinaries } from '../../packages/server/src/media/ffmpeg-binaries.ts';

// Tracing on the embedded default (SQLite, one process), exported as OTLP/HTTP protobuf to a
// collector on loopback and decoded there with opentelemetry-proto's schema: one task's spans are
// one trace from the HTTP submit to its webhook delivery, continuing the caller's traceparent, and
// the trace goes on to the webhook receiver and to a relay's upstream.

const TINY = { family: 'B', resolution: '180p', durations: [1], aspect_ratios: ['16:9'] };
const TASK_STEPS = [
  'POST /v1/video/generations',
  'task.enqueue',
  'task.claim',
  'task.attempt',
  'task.generate',
  'ffmpeg.render',
  'task.verify',
  'task.store',
  'blob.put',
  'task.complete',
  'webhook.deliver',
];

async function tinyCatalog(dir: string, models: object[]): Promise<string> {
  const file = join(dir, `models-${models.length}-${Date.now()}.json`);
  await writeFile(file, JSON.stringify({ models }));
  return file;
}

describe('tracing, one process on SQLite', () => {
  let otlp: OtlpReceiver;
  let dir: string;
  const services: TestService[] = [];
  const closers: Array<() => Promise<void>> = [];
  const traced = (extra: Record<string, string>, logTo?: { write(line: string): void }) =>
    startTestService(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
        // A short batch delay so spans arrive while the test waits; shutdown flushes the rest.
        OTEL_BSP_SCHEDULE_DELAY: '50',
        VIDGEN_RENDER_PRESET: 'ultrafast',
        ...extra,
      },
      undefined,
      logTo,
    ).then((s) => (services.push(s), s));

  before(async () => {
    otlp = await startOtlpReceiver();
    dir = await mkdtemp(join(tmpdir(), 'vidgen-tracing-'));
  });
  after(async () => {
    for (const s of services) await s.close();
    for (const close of closers) await close();
    await otlp.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("is one trace from the HTTP submit to the webhook delivery, continuing the caller's", async () => {
    const lines: string[] = [];
    const svc = await traced(
      {
        OTEL_SERVICE_NAME: 'vidgen-test',
        VIDGEN_MODELS_FILE: await tinyCatalog(dir, [{ id: 'tiny', backend: 'renderer', ...TINY }]),
      },
      { write: (line) => void lines.push(line) },
    );
    const hook = await startWebhookReceiver();
    closers.push(hook.close);
    const key = await svc.createKey('tracing');
    const client = api(svc.url, key);
    const prompt = 'a lighthouse keeper counting gulls';
    const submit = await client.post(
      '/v1/video/generations',
      { model: 'tiny', prompt, callback_url: hook.url },
      { traceparent: CALLER.traceparent, tracestate: CALLER.tracestate },
    );
    assert.equal(submit.status, 200, JSON.stringify(submit.body));
    const id = submit.body.task_id;
    await pollUntil(
      () => client.get(`/v1/video/generations/${id}`),
      (a) => a.body.status === 'SUCCESS',
    );
    await hook.until((all) => all.length > 0);
    await otlp.until((spans) => {
      const trace = traceOf(spans, CALLER.traceId);
      return (
        TASK_STEPS.every((name) => trace.named(name).length > 0) &&
        trace.named('POST').length > 0 &&
        trace.linked(CALLER.spanId)
      );
    });
    const trace = traceOf(otlp.spans, CALLER.traceId);

    // The caller's span is the root's parent; every other span's parent is in the trace.
    trace.assertLinked(CALLER.spanId);
    const server = trace.one('POST /v1/video/generations');
    assert.equal(server.kind, 'SERVER');
    assert.equal(server.parentSpanId, CALLER.spanId);
    assert.equal(server.traceState, CALLER.tracestate, 'the caller tracestate is kept');
    assert.equal(server.attributes['http.request.method'], 'POST');
    assert.equal(server.attributes['http.route'], '/v1/video/generations');
    assert.equal(server.attributes['http.response.status_code'], 200);
    assert.equal(server.attributes['url.path'], '/v1/video/generations');
    assert.equal(server.attributes['url.scheme'], 'http');
    assert.equal(server.attributes['server.address'], '127.0.0.1');
    assert.equal(typeof server.attributes['server.port'], 'number');
    assert.equal(server.status, 'UNSET');
    assert.equal(server.resource['service.name'], 'vidgen-test');
    assert.equal(server.resource['vidgen.role'], 'all');

    const enqueue = trace.one('task.enqueue');
    assert.equal(enqueue.kind, 'PRODUCER');
    assert.equal(enqueue.attributes['vidgen.task.id'], id);
    trace.assertChild(enqueue, server);
    const insert = trace.named('INSERT tasks').find((s) => s.parentSpanId === enqueue.spanId);
    assert.ok(insert, `the insert is the enqueue's child: ${trace.describe()}`);
    assert.equal(insert.kind, 'CLIENT');
    assert.equal(insert.attributes['db.system.name'], 'sqlite');
    assert.equal(insert.attributes['db.operation.name'], 'INSERT');
    assert.equal(insert.attributes['db.collection.name'], 'tasks');
    assert.match(String(insert.attributes['db.query.text']), /^insert into "tasks"/);

    const claim = trace.one('task.claim');
    assert.equal(claim.kind, 'CONSUMER');
    trace.assertChild(claim, enqueue);
    const attempt = trace.one('task.attempt');
    trace.assertChild(attempt, claim);
    assert.equal(attempt.attributes['vidgen.attempt.outcome'], 'succeeded');
    assert.equal(attempt.attributes['vidgen.task.attempt'], 1);
    const generate = trace.one('task.generate');
    trace.assertChild(generate, attempt);
    trace.assertChild(trace.one('ffmpeg.render'), generate);
    trace.assertChild(trace.one('task.verify'), attempt);
    const store = trace.one('task.store');
    trace.assertChild(store, attempt);
    trace.assertChild(trace.one('blob.put'), store);
    const complete = trace.one('task.complete');
    trace.assertChild(complete, attempt);
    assert.ok(
      trace.named('UPDATE tasks').some((s) => s.parentSpanId === complete.spanId),
      'the completion statement is its child',
    );

    // The delivery hangs under the completion that wrote its event, and its POST is what the receiver continues.
    const deliver = trace.one('webhook.deliver');
    trace.assertChild(deliver, complete);
    assert.equal(deliver.attributes['vidgen.webhook.event_type'], 'video.completed');
    const post = trace.named('POST').find((s) => s.parentSpanId === deliver.spanId);
    assert.ok(post, `the POST is the delivery's child: ${trace.describe()}`);
    assert.equal(post.kind, 'CLIENT');
    assert.equal(post.attributes['http.response.status_code'], 200);
    assert.equal(post.attributes['url.full'], new URL(hook.url).origin, 'the receiver URL without its path');
    const sent = parseTraceparent(hook.received[0].headers.traceparent);
    assert.deepEqual(sent, { traceId: CALLER.traceId, spanId: post.spanId });
    assert.equal(hook.received[0].headers.tracestate, CALLER.tracestate);

    // Nothing secret or personal in the trace: not the key, not the prompt.
    assertNoSecrets(trace.spans, [key, prompt]);

    // Log lines carry the ids of the span they were written in.
    const logged = lines.map((l) => JSON.parse(l));
    const succeeded = logged.find((l) => l.msg === 'task succeeded' && l.taskId === id);
    assert.equal(succeeded?.trace_id, CALLER.traceId);
    assert.ok(trace.byId.has(succeeded.span_id), 'the line names a span of the trace');
    const access = logged.find((l) => l.msg === 'request completed' && l.req.method === 'POST');
    assert.equal(access?.trace_id, CALLER.traceId);
    assert.equal(access?.span_id, server.spanId);

    // A request without a traceparent starts a trace of its own; a query string is never recorded;
    // a probe makes no trace at all (spans are exported in the order they end: the poll's comes after).
    const before = otlp.spans.length;
    assert.equal((await fetch(`${svc.url}/healthz`)).status, 200);
    const poll = await client.get(`/v1/video/generations/${id}?wait=1`);
    assert.equal(poll.status, 200);
    await otlp.until((spans) => spans.slice(before).some((s) => s.name === 'GET /v1/video/generations/:task_id'));
    const get = otlp.spans.slice(before).find((s) => s.name === 'GET /v1/video/generations/:task_id')!;
    assert.equal(get.parentSpanId, '');
    assert.notEqual(get.traceId, CALLER.traceId);
    assert.equal(get.attributes['url.path'], `/v1/video/generations/${id}`);
    assert.ok(!otlp.spans.slice(before).some((s) => s.name === 'GET /healthz'), 'no span for a probe');
    assert.equal(otlp.refused.length, 0, `the exporter sent only OTLP protobuf: ${otlp.refused.join(', ')}`);
  });

  it("carries the trace to a relay's upstream: its submit and each poll continue it", async () => {
    const upstream = await traced({
      OTEL_SERVICE_NAME: 'vidgen-upstream',
      VIDGEN_MODELS_FILE: await tinyCatalog(dir, [{ id: 'tiny-up', backend: 'renderer', ...TINY }]),
    });
    const upstreamKey = await upstream.createKey('relay-channel');
    const backends = join(dir, 'backends.json');
    await writeFile(
      backends,
      JSON.stringify({
        backends: {
          relayed: {
            type: 'relay',
            channels: [
              {
                name: 'traced-upstream',
                dialect: 'B',
                upstream: 'vidgen',
                base_url: upstream.url,
                api_key_env: 'TEST_TRACED_UPSTREAM_KEY',
                models: { 'tiny-relayed': 'tiny-up' },
                poll_interval_seconds: 0.2,
              },
            ],
          },
        },
      }),
    );
    const front = await traced({
      OTEL_SERVICE_NAME: 'vidgen-front',
      VIDGEN_BACKENDS_FILE: backends,
      VIDGEN_MODELS_FILE: await tinyCatalog(dir, [{ id: 'tiny-relayed', backend: 'relayed', ...TINY }]),
      TEST_TRACED_UPSTREAM_KEY: upstreamKey,
    });
    const key = await front.createKey('relay-customer');
    const client = api(front.url, key);
    const traceId = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    const prompt = 'a ferry crossing in fog';
    const submit = await client.post(
      '/v1/video/generations',
      { model: 'tiny-relayed', prompt },
      { traceparent: `00-${traceId}-1111111111111111-01` },
    );
    assert.equal(submit.status, 200, JSON.stringify(submit.body));
    await pollUntil(
      () => client.get(`/v1/video/generations/${submit.body.task_id}`),
      (a) => a.body.status === 'SUCCESS',
    );
    const upstreamServer = (name: string) => (s: { name: string; resource: Record<string, unknown> }) =>
      s.name === name && s.resource['service.name'] === 'vidgen-upstream';
    await otlp.until((spans) => {
      const trace = traceOf(spans, traceId);
      return (
        ['relay.submit', 'relay.poll', 'relay.download', 'task.attempt'].every((n) => trace.named(n).length > 0) &&
        trace.spans.some(upstreamServer('POST /v1/video/generations')) &&
        trace.spans.some(upstreamServer('GET /v1/video/generations/:task_id')) &&
        trace.linked('1111111111111111')
      );
    });
    const trace = traceOf(otlp.spans, traceId);
    trace.assertLinked('1111111111111111');
    // The upstream's own task joins the trace too (it is a vidgen server, traced): ours are the front's spans.
    const ours = new Trace(trace.spans.filter((s) => s.resource['service.name'] === 'vidgen-front'));
    const generate = ours.one('task.generate');
    const relaySubmit = ours.one('relay.submit');
    trace.assertChild(relaySubmit, generate);
    assert.equal(relaySubmit.attributes['vidgen.relay.channel'], 'traced-upstream');

    // The create: our client span under relay.submit, and the upstream's server span under it,
    // which it could only be from the traceparent header our request carried.
    const create = trace.named('POST').find((s) => s.parentSpanId === relaySubmit.spanId);
    assert.ok(create, `the create is relay.submit's child: ${trace.describe()}`);
    assert.equal(create.kind, 'CLIENT');
    assert.equal(create.attributes['http.response.status_code'], 200);
    assert.equal(create.attributes['url.full'], `${upstream.url}/v1/video/generations`);
    trace.assertChild(trace.spans.find(upstreamServer('POST /v1/video/generations'))!, create);

    // Each poll is a span with its GET; the upstream's poll spans are children of those GETs.
    const polls = ours.named('relay.poll');
    for (const poll of polls) trace.assertChild(poll, generate);
    const gets = trace.named('GET').filter((s) => polls.some((p) => p.spanId === s.parentSpanId));
    assert.equal(gets.length, polls.length, 'one GET per poll');
    for (const get of gets) assert.ok(!String(get.attributes['url.full']).includes('?'), 'no query string');
    for (const answered of trace.spans.filter(upstreamServer('GET /v1/video/generations/:task_id')))
      assert.ok(
        gets.some((g) => g.spanId === answered.parentSpanId),
        'every poll the upstream answered came with our traceparent',
      );
    const download = ours.one('relay.download');
    trace.assertChild(download, generate);
    assert.ok(
      trace.named('GET').some((s) => s.parentSpanId === download.spanId),
      'the download has its GET',
    );
    assertNoSecrets(trace.spans, [key, upstreamKey, prompt]);
  });

  it('carries the trace to a ComfyUI host: the prompt and the download are spans, each call has its traceparent', async () => {
    const standIn = await ComfyUiStandIn.start({ ffmpeg: resolveFfmpegBinaries({}).ffmpeg });
    closers.push(() => standIn.close());
    const comfy = join(dir, 'comfyui.json');
    await writeFile(
      comfy,
      JSON.stringify({
        hosts: [{ name: 'gpu-traced', url: standIn.url, slots: 1 }],
        backends: { wan: { preset: 'wan2.2-ti2v-5b' } },
      }),
    );
    const svc = await traced({
      OTEL_SERVICE_NAME: 'vidgen-gpu',
      VIDGEN_COMFYUI_CONFIG: comfy,
      VIDGEN_MODELS_FILE: await tinyCatalog(dir, [
        { id: 'wan-tiny', backend: 'wan', family: 'B', resolution: '480p', durations: [1], aspect_ratios: ['1:1'] },
      ]),
    });
    const client = api(svc.url, await svc.createKey('gpu'));
    const traceId = '0123456789abcdef0123456789abcdef';
    const submit = await client.post(
      '/v1/video/generations',
      { model: 'wan-tiny', prompt: 'a fox in snow', ratio: '1:1' },
      { traceparent: `00-${traceId}-2222222222222222-01` },
    );
    assert.equal(submit.status, 200, JSON.stringify(submit.body));
    await pollUntil(
      () => client.get(`/v1/video/generations/${submit.body.task_id}`),
      (a) => a.body.status === 'SUCCESS',
    );
    await otlp.until((spans) => {
      const trace = traceOf(spans, traceId);
      return trace.named('task.attempt').length > 0 && trace.linked('2222222222222222');
    });
    const trace = traceOf(otlp.spans, traceId);
    const generate = trace.one('task.generate');
    const prompt = trace.one('comfyui.prompt');
    trace.assertChild(prompt, generate);
    assert.equal(prompt.attributes['vidgen.comfyui.host'], 'gpu-traced');
    trace.assertChild(trace.one('comfyui.download'), generate);
    // Every HTTP call to the host carried the trace, as the child of a client span of ours.
    const calls = standIn.stats.requests.map((request, i) => ({ request, traceparent: standIn.stats.traceparents[i] }));
    const queued = calls.find((c) => c.request === 'POST /prompt');
    assert.ok(queued, `the prompt was queued: ${standIn.stats.requests.join(', ')}`);
    const sent = parseTraceparent(queued.traceparent);
    assert.equal(sent.traceId, traceId);
    const post = trace.byId.get(sent.spanId);
    assert.equal(post?.kind, 'CLIENT');
    assert.equal(post?.name, 'POST');
    assert.equal(post?.attributes['url.full'], `${standIn.url}/prompt`);
    assert.ok(post && trace.parentOf(post)?.name === 'comfyui.prompt', 'the POST is a step of the prompt');
    for (const call of calls.filter((c) => !c.request.startsWith('GET /ws')))
      assert.equal(parseTraceparent(call.traceparent).traceId, traceId, `${call.request} carried the trace`);
  });

  it("sends a cancel's event in the task's trace, not the cancel request's", async () => {
    const svc = await traced({ OTEL_SERVICE_NAME: 'vidgen-cancel' });
    const hook = await startWebhookReceiver();
    closers.push(hook.close);
    const client = api(svc.url, await svc.createKey('canceling'));
    const taskTrace = 'c0ffee00c0ffee00c0ffee00c0ffee00';
    const cancelTrace = 'dec0de00dec0de00dec0de00dec0de00';
    const submit = await client.post(
      '/v1/video/generations',
      { model: 'video-v1-15s', prompt: 'a long harbour pan', callback_url: hook.url },
      { traceparent: `00-${taskTrace}-3333333333333333-01` },
    );
    assert.equal(submit.status, 200, JSON.stringify(submit.body));
    const cancel = await client.post(`/v1/videos/${submit.body.task_id}/cancel`, undefined, {
      traceparent: `00-${cancelTrace}-4444444444444444-01`,
    });
    assert.equal(cancel.status, 200, JSON.stringify(cancel.body));
    await hook.until((all) => all.length > 0);
    assert.equal(parseTraceparent(hook.received[0].headers.traceparent).traceId, taskTrace);
    await otlp.until((spans) => traceOf(spans, taskTrace).named('webhook.deliver').length > 0);
    const trace = traceOf(otlp.spans, taskTrace);
    const deliver = trace.one('webhook.deliver');
    assert.equal(deliver.attributes['vidgen.webhook.event_type'], 'video.canceled');
    // The cancel changed the task from another trace: the event joins the task's own, under its enqueue.
    trace.assertChild(deliver, trace.one('task.enqueue'));
    await otlp.until((spans) => traceOf(spans, cancelTrace).spans.length > 0);
    assert.equal(traceOf(otlp.spans, cancelTrace).named('webhook.deliver').length, 0);
  });
});
