import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetObjectCommand, S3Client, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { startS3Server, type TestS3Server } from '../../packages/server/test/support/s3-server.ts';
import { startTestService, type TestService } from './support/service.ts';
import { api, pollUntil, type Api } from './support/http.ts';

const ADMIN_TOKEN = 'admin-token-for-caller-storage-tests';

/** A receiver of PUTs that answers what the test says, keeping every body it got. */
async function startReceiver(answer: (req: IncomingMessage) => Promise<number> | number) {
  const bodies: Buffer[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    bodies.push(Buffer.concat(chunks));
    res.statusCode = await answer(req);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/upload?X-Amz-Signature=secret`,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// Output written to the caller's own storage (docs/storage.md): `output.upload_url` PUT to a presigned
// S3 URL byte for byte, `storage_error` when it keeps failing, `storage_options` as a downloadable file,
// and zero retention.
describe("the caller's own storage", () => {
  let svc: TestService;
  let client: Api;
  let admin: Api;
  let s3: TestS3Server;
  let s3Client: S3Client;

  const presignedPut = (key: string) =>
    getSignedUrl(s3Client, new PutObjectCommand({ Bucket: s3.bucket, Key: key }), { expiresIn: 600 });
  const s3Object = async (key: string) => {
    const got = await s3Client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
    return Buffer.from(await got.Body!.transformToByteArray());
  };
  const content = async (id: string, key = client) => {
    const res = await key.call('GET', `/v1/videos/${id}/content`);
    return res;
  };
  const bytesOf = async (url: string, headers: Record<string, string> = {}) => {
    const res = await fetch(url, { headers });
    return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
  };

  before(async () => {
    const started = await startS3Server();
    if (typeof started === 'string') throw new Error(started);
    s3 = started;
    s3Client = new S3Client({
      endpoint: s3.endpoint,
      region: s3.region,
      credentials: s3.credentials,
      forcePathStyle: true,
    });
    svc = await startTestService({ VIDGEN_ADMIN_TOKEN: ADMIN_TOKEN, VIDGEN_UPLOAD_RETRY_SECONDS: '2' });
    client = api(svc.url, await svc.createKey('storage'));
    admin = api(svc.url, ADMIN_TOKEN);
  });
  after(async () => {
    s3Client?.destroy();
    await svc?.close();
    await s3?.close();
  });

  it('PUTs the verified MP4 to a presigned S3 URL, byte for byte, showing progress 100 while it uploads', async () => {
    const url = await presignedPut('out/a.mp4');
    const submit = await client.post('/v1/videos/generations', {
      model: 'grok-imagine-video',
      prompt: 'a kite over the sea',
      duration: 1,
      output: { upload_url: url },
    });
    assert.equal(submit.status, 200, JSON.stringify(submit.body));
    const done = await pollUntil(
      () => client.get(`/v1/videos/${submit.body.request_id}`),
      (a) => a.body.status === 'done',
    );
    assert.equal(done.body.video.storage_error, undefined, JSON.stringify(done.body));
    const kept = await content(submit.body.request_id);
    assert.equal(kept.status, 200);
    const served = await bytesOf(done.body.video.url);
    assert.ok(served.bytes.length > 1000);
    assert.deepEqual(await s3Object('out/a.mp4'), served.bytes, 'the object is the video, byte for byte');
  });

  it('is running at progress 100 while the upload is under way', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const receiver = await startReceiver(async () => (await held, 200));
    try {
      const submit = await client.post('/v1/video/generations', {
        model: 'video-v1-5s',
        prompt: 'a boat',
        output: { upload_url: receiver.url },
      });
      assert.equal(submit.status, 200, JSON.stringify(submit.body));
      const uploading = await pollUntil(
        () => client.get(`/v1/video/generations/${submit.body.task_id}`),
        (a) => a.body.progress === 100 || a.body.status === 'SUCCESS',
      );
      assert.equal(uploading.body.status, 'IN_PROGRESS', 'not reported done before the upload ends');
      release();
      const done = await pollUntil(
        () => client.get(`/v1/video/generations/${submit.body.task_id}`),
        (a) => a.body.status === 'SUCCESS',
      );
      assert.equal(done.body.video, undefined, 'a delivered upload adds nothing to the answer');
      assert.equal(receiver.bodies.length, 1);
    } finally {
      release();
      await receiver.close();
    }
  });

  it('gives storage_error, in every dialect, when the receiver keeps failing; the video stays here', async () => {
    const receiver = await startReceiver(() => 503);
    try {
      const a = await client.post('/v1/videos/generations', {
        model: 'grok-imagine-video',
        prompt: 'rain on a window',
        duration: 1,
        output: { upload_url: receiver.url },
      });
      const o = await client.post('/v1/videos', {
        model: 'sora-2',
        prompt: 'rain on a window',
        seconds: '4',
        output: { upload_url: receiver.url },
      });
      assert.equal(a.status, 200, JSON.stringify(a.body));
      assert.equal(o.status, 200, JSON.stringify(o.body));
      const doneA = await pollUntil(
        () => client.get(`/v1/videos/${a.body.request_id}`),
        (x) => x.body.status === 'done',
      );
      const doneO = await pollUntil(
        () => client.get(`/v1/videos/${o.body.id}`),
        (x) => x.body.status === 'completed',
      );
      for (const storageError of [doneA.body.video.storage_error, doneO.body.video.storage_error]) {
        assert.match(storageError, /HTTP status 503 \(\d+ attempts\)/);
        assert.doesNotMatch(storageError, /secret|127\.0\.0\.1/, 'the URL and its signature are never shown');
      }
      assert.ok(receiver.bodies.length >= 4, 'retried');
      assert.equal((await content(a.body.request_id)).status, 200, 'the video stays at vidgen');
    } finally {
      await receiver.close();
    }
  });

  it('refuses an upload_url that is not http(s), writing nothing', async () => {
    const before = (await client.get('/v1/videos?limit=100')).body.data.length;
    const refused = await client.post('/v1/videos/generations', {
      model: 'grok-imagine-video',
      prompt: 'a tree',
      duration: 1,
      output: { upload_url: 'ftp://example.com/x.mp4' },
    });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.param, 'output.upload_url');
    assert.equal(refused.body.error.code, 'invalid_upload_url');
    assert.equal((await client.get('/v1/videos?limit=100')).body.data.length, before);
  });

  it("keeps the video among the account's files for storage_options, with a signed public_url", async () => {
    const submit = await client.post('/v1/videos/generations', {
      model: 'grok-imagine-video',
      prompt: 'a lighthouse',
      duration: 1,
      storage_options: { filename: 'lighthouse.mp4', expires_after: 86_400, public_url: true },
    });
    assert.equal(submit.status, 200, JSON.stringify(submit.body));
    const done = await pollUntil(
      () => client.get(`/v1/videos/${submit.body.request_id}`),
      (a) => a.body.status === 'done',
    );
    const output = done.body.video.file_output;
    assert.equal(output.filename, 'lighthouse.mp4');
    assert.ok(output.expires_at > Date.now() / 1000 + 86_000);
    const video = await bytesOf(done.body.video.url);
    const viaKey = await bytesOf(`${svc.url}/v1/files/${output.file_id}/content`, {
      authorization: `Bearer ${await svc.createKey('storage')}`,
    });
    assert.equal(viaKey.status, 200);
    assert.deepEqual(viaKey.bytes, video.bytes);
    const viaLink = await bytesOf(output.public_url);
    assert.equal(viaLink.status, 200, 'the public link needs no key');
    assert.deepEqual(viaLink.bytes, video.bytes);
    const other = await bytesOf(`${svc.url}/v1/files/${output.file_id}/content`, {
      authorization: `Bearer ${await svc.createKey('someone-else')}`,
    });
    assert.equal(other.status, 404, "another account's file is not found");
    const tampered = await bytesOf(output.public_url.replace(/sig=[^&]+/, 'sig=AAAA'));
    assert.equal(tampered.status, 403);
  });

  it('zero retention: refuses a submit without upload_url, and keeps nothing once delivered', async () => {
    const key = await svc.createKey('zdr');
    const zdr = api(svc.url, key);
    const set = await admin.call('PATCH', '/admin/v1/accounts/zdr', { zero_retention: true });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal(set.body.zero_retention, true);
    const refused = await zdr.post('/v1/video/generations', { model: 'video-v1-5s', prompt: 'a car' });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.code, 'upload_url_required');
    assert.equal(refused.body.error.param, 'output.upload_url');

    const url = await presignedPut('out/zdr.mp4');
    const submit = await zdr.post('/v1/video/generations', {
      model: 'video-v1-5s',
      prompt: 'a car',
      output: { upload_url: url },
    });
    assert.equal(submit.status, 200, JSON.stringify(submit.body));
    await pollUntil(
      () => zdr.get(`/v1/video/generations/${submit.body.task_id}`),
      (a) => a.body.status === 'SUCCESS',
    );
    const uploaded = await s3Object('out/zdr.mp4');
    assert.ok(uploaded.length > 1000);
    for (const path of ['', '?variant=thumbnail', '?variant=spritesheet']) {
      const gone = await zdr.get(`/v1/videos/${submit.body.task_id}/content${path}`);
      assert.equal(gone.status, 404, path);
      assert.equal(gone.body.error.code, 'video_delivered', path);
    }
  });
});
