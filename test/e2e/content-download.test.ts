import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from './support/service.ts';
import { api, pollUntil, type Api } from './support/http.ts';
import { KEY_CACHE_MS } from '../../packages/server/src/api/authenticate.ts';

// The content endpoint: exact headers, byte ranges, HEAD, ETag, and signed links.
describe('content download', () => {
  let svc: TestService;
  let key: string;
  let client: Api;
  let id: string;
  let signedUrl: string;
  let whole: Buffer;

  before(async () => {
    svc = await startTestService();
    key = await svc.createKey('content');
    client = api(svc.url, key);
    const submit = await client.post('/v1/video/generations', {
      model: 'video-v1-5s',
      prompt: 'forest in the morning',
    });
    id = submit.body.task_id;
    const pending = await client.get(`/v1/videos/${id}/content`);
    if (pending.status !== 200) {
      assert.equal(pending.status, 409, 'no partial file before success');
      assert.equal(pending.body.error.code, 'video_not_ready');
    }
    await pollUntil(
      () => client.get(`/v1/video/generations/${id}`),
      (a) => a.body.status === 'SUCCESS',
    );
    signedUrl = (await client.get(`/v1/videos/${id}`)).body.video.url;
    whole = Buffer.from(
      await (
        await fetch(`${svc.url}/v1/videos/${id}/content`, { headers: { authorization: `Bearer ${key}` } })
      ).arrayBuffer(),
    );
  });
  after(() => svc.close());

  const get = (headers: Record<string, string> = {}, method = 'GET') =>
    fetch(`${svc.url}/v1/videos/${id}/content`, { method, headers: { authorization: `Bearer ${key}`, ...headers } });

  it('serves the whole MP4 with exact length, type, ETag and range support', async () => {
    const res = await get();
    const body = Buffer.from(await res.arrayBuffer());
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'video/mp4');
    assert.equal(Number(res.headers.get('content-length')), body.length);
    assert.equal(res.headers.get('accept-ranges'), 'bytes');
    assert.match(res.headers.get('etag') ?? '', /^".+"$/);
    assert.equal(body.subarray(4, 8).toString('latin1'), 'ftyp');
    assert.ok(body.equals(whole));
  });

  it('answers Range requests with 206 and the exact bytes', async () => {
    for (const [header, start, end] of [
      ['bytes=0-99', 0, 99],
      ['bytes=100-', 100, whole.length - 1],
      ['bytes=-50', whole.length - 50, whole.length - 1],
    ] as const) {
      const res = await get({ range: header });
      const body = Buffer.from(await res.arrayBuffer());
      assert.equal(res.status, 206, header);
      assert.equal(res.headers.get('content-range'), `bytes ${start}-${end}/${whole.length}`);
      assert.equal(Number(res.headers.get('content-length')), end - start + 1);
      assert.ok(body.equals(whole.subarray(start, end + 1)), header);
    }
  });

  it('answers an unsatisfiable range with 416', async () => {
    const res = await get({ range: `bytes=${whole.length + 10}-` });
    assert.equal(res.status, 416);
    assert.equal(res.headers.get('content-range'), `bytes */${whole.length}`);
  });

  it('supports HEAD and conditional requests', async () => {
    const head = await get({}, 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(Number(head.headers.get('content-length')), whole.length);
    assert.equal((await head.arrayBuffer()).byteLength, 0);
    const etag = head.headers.get('etag')!;
    assert.equal((await get({ 'if-none-match': etag })).status, 304);
    assert.equal(
      (await get({ 'if-range': '"other"', range: 'bytes=0-9' })).status,
      200,
      'stale If-Range gets the whole file',
    );
  });

  it('serves a signed link without the key, and refuses a tampered or expired one with 403', async () => {
    const ok = await fetch(signedUrl);
    assert.equal(ok.status, 200);
    assert.ok(Buffer.from(await ok.arrayBuffer()).equals(whole));
    const tampered = new URL(signedUrl);
    tampered.searchParams.set('expires', String(Number(tampered.searchParams.get('expires')) + 60));
    const bad = await fetch(tampered);
    assert.equal(bad.status, 403);
    assert.equal((await bad.json()).error.code, 'signature_invalid');
    const otherTask = new URL(signedUrl.replace(id, '00000000-0000-7000-8000-000000000000'));
    assert.equal((await fetch(otherTask)).status, 403);
    const unsigned = new URL(signedUrl);
    unsigned.search = '';
    assert.equal((await fetch(unsigned)).status, 401);
  });

  it('gives every concurrent download its own bytes, also when others are aborted mid-way', async () => {
    // Downloads reuse read buffers (api/content/read-buffers.ts): a reused buffer must never carry
    // another answer's bytes, whatever ends first.
    const other = (
      await client.post('/v1/video/generations', { model: 'video-v1-5s', prompt: 'a red kite over dunes' })
    ).body.task_id;
    await pollUntil(
      () => client.get(`/v1/video/generations/${other}`),
      (a) => a.body.status === 'SUCCESS',
    );
    const download = (taskId: string, headers: Record<string, string> = {}, signal?: AbortSignal) =>
      fetch(`${svc.url}/v1/videos/${taskId}/content`, {
        headers: { authorization: `Bearer ${key}`, ...headers },
        signal,
      });
    const otherWhole = Buffer.from(await (await download(other)).arrayBuffer());
    assert.notDeepEqual(otherWhole, whole);
    for (let round = 0; round < 5; round++) {
      const checks = Array.from({ length: 24 }, async (_, i) => {
        const [taskId, bytes] = i % 2 === 0 ? [id, whole] : [other, otherWhole];
        if (i % 3 === 0) {
          const abort = new AbortController();
          const res = await download(taskId, {}, abort.signal);
          abort.abort();
          await res.arrayBuffer().catch(() => undefined);
          return;
        }
        if (i % 3 === 1) {
          const res = await download(taskId, { range: 'bytes=100-4099' });
          assert.equal(res.status, 206);
          assert.deepEqual(Buffer.from(await res.arrayBuffer()), bytes.subarray(100, 4100));
          return;
        }
        assert.deepEqual(Buffer.from(await (await download(taskId)).arrayBuffer()), bytes);
      });
      await Promise.all(checks);
    }
  });

  it('stops honouring signed links of a revoked key', async () => {
    const second = await svc.createKey('content');
    const url = (await api(svc.url, second).get(`/v1/videos/${id}`)).body.video.url;
    assert.equal((await fetch(url)).status, 200);
    await svc.revokeKeyOf(second);
    // Like a Bearer key, within the time a key is trusted without asking the database again.
    const refused = await pollUntil(
      async () => {
        const res = await fetch(url);
        return { status: res.status, headers: res.headers, body: await res.arrayBuffer() };
      },
      (a) => a.status === 403,
      KEY_CACHE_MS + 1000,
    );
    assert.equal(refused.status, 403);
  });
});

describe('signed link expiry', () => {
  it('refuses a link past its expiry with 403 signature_expired', async () => {
    const svc = await startTestService({ VIDGEN_SIGNED_URL_TTL_SECONDS: '1' });
    try {
      const client = api(svc.url, await svc.createKey('ttl'));
      const submit = await client.post('/v1/video/generations', { model: 'video-v1-5s', prompt: 'snow' });
      await pollUntil(
        () => client.get(`/v1/video/generations/${submit.body.task_id}`),
        (a) => a.body.status === 'SUCCESS',
      );
      const url = (await client.get(`/v1/videos/${submit.body.task_id}`)).body.video.url;
      await new Promise((r) => setTimeout(r, 2100));
      const res = await fetch(url);
      assert.equal(res.status, 403);
      assert.equal((await res.json()).error.code, 'signature_expired');
    } finally {
      await svc.close();
    }
  });
});
