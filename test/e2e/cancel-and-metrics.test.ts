import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from './support/service.ts';
import { api, pollUntil, type Api } from './support/http.ts';

describe('cancel', () => {
  let svc: TestService;
  let client: Api;
  before(async () => {
    // One slot, so a second task stays queued while the first renders.
    svc = await startTestService({ VIDGEN_WORKER_CONCURRENCY: '1' });
    client = api(svc.url, await svc.createKey('cancel'));
  });
  after(() => svc.close());

  const longB = () =>
    client.post('/v1/video/generations', { model: 'video-v1-15s', prompt: 'slow pan over mountains' });
  const longA = () =>
    client.post('/v1/videos/generations', {
      model: 'vx-imagine-video-1.5-1080p',
      prompt: 'zoom in',
      duration: 15,
      image: {
        url: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
      },
    });

  it('cancels a running and a queued task in family B, which end FAILURE with code canceled', async () => {
    const running = (await longB()).body.task_id;
    const queued = (await longB()).body.task_id;
    await pollUntil(
      () => client.get(`/v1/video/generations/${running}`),
      (a) => a.body.status === 'IN_PROGRESS',
    );
    const q = await client.get(`/v1/video/generations/${queued}`);
    assert.equal(q.body.status, 'queued');
    assert.equal(q.body.queue_position, 0);
    for (const id of [queued, running]) {
      const res = await client.post(`/v1/video/generations/${id}/cancel`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.status, 'FAILURE');
      assert.equal(res.body.error.code, 'canceled');
    }
    // The renderer stopped: the slot is free for the next task, and no video was kept.
    const next = (await client.post('/v1/video/generations', { model: 'video-v1-5s', prompt: 'next' })).body.task_id;
    await pollUntil(
      () => client.get(`/v1/video/generations/${next}`),
      (a) => a.body.status === 'SUCCESS',
    );
    assert.equal((await client.get(`/v1/video/generations/${running}`)).body.status, 'FAILURE');
    assert.equal((await client.get(`/v1/videos/${running}/content`)).status, 409);
  });

  it('cancels in family A, which ends failed with code canceled; a finished task is a 409', async () => {
    const running = (await longA()).body.request_id;
    await pollUntil(
      () => client.get(`/v1/videos/${running}`),
      (a) => a.body.progress > 0,
    );
    const res = await client.post(`/v1/videos/${running}/cancel`);
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'failed');
    assert.deepEqual(res.body.error, { code: 'canceled', message: 'The task was canceled.' });
    const again = await client.post(`/v1/videos/${running}/cancel`);
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'task_not_cancelable');
    const other = api(svc.url, await svc.createKey('someone-else'));
    assert.equal((await other.post(`/v1/videos/${running}/cancel`)).status, 404);
  });
});

describe('metrics and readiness', () => {
  it('exposes Prometheus metrics and a readiness check without a key', async () => {
    const svc = await startTestService();
    try {
      const client = api(svc.url, await svc.createKey('metrics'));
      const id = (await client.post('/v1/video/generations', { model: 'video-v1-5s', prompt: 'metrics' })).body.task_id;
      await pollUntil(
        () => client.get(`/v1/video/generations/${id}`),
        (a) => a.body.status === 'SUCCESS',
      );
      const ready = await api(svc.url).get('/readyz');
      assert.equal(ready.status, 200);
      const res = await fetch(`${svc.url}/metrics`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /text\/plain/);
      const text = await res.text();
      for (const name of [
        'vidgen_queue_depth',
        'vidgen_running_tasks',
        'vidgen_claims_total{backend="renderer"} 1',
        'vidgen_lease_reclaims_total',
        'vidgen_retries_total',
        'vidgen_task_duration_seconds_bucket{le="0.5",backend="renderer",outcome="succeeded"}',
        'vidgen_queue_wait_seconds',
      ]) {
        assert.ok(text.includes(name), `missing ${name}`);
      }
    } finally {
      await svc.close();
    }
  });

  it('guards /metrics with a token when one is configured', async () => {
    const svc = await startTestService({ VIDGEN_ROLE: 'api', VIDGEN_METRICS_TOKEN: 'scrape-secret' });
    try {
      assert.equal((await fetch(`${svc.url}/metrics`)).status, 401);
      assert.equal(
        (await fetch(`${svc.url}/metrics`, { headers: { authorization: 'Bearer scrape-secret' } })).status,
        200,
      );
    } finally {
      await svc.close();
    }
  });
});
