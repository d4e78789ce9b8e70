import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { inspect } from 'node:util';
import { S3BlobStore, type S3BlobStoreOptions } from '../../src/blobs/s3-blob-store.ts';
import { S3BlobStoreError } from '../../src/blobs/s3-blob-store-error.ts';
import { startS3Server, type TestS3Server } from '../support/s3-server.ts';

/** What the contract cannot say about S3 alone: signing, prefixes, and how failures read. */
describe('S3 blob store', () => {
  let server: TestS3Server | undefined;
  let skip: string | undefined;
  const stores: S3BlobStore[] = [];
  const open = (overrides: Partial<S3BlobStoreOptions> = {}) => {
    const s = server!;
    const store = new S3BlobStore({
      bucket: s.bucket,
      region: s.region,
      endpoint: s.endpoint,
      forcePathStyle: true,
      credentials: s.credentials,
      ...overrides,
    });
    stores.push(store);
    return store;
  };

  before(async () => {
    const started = await startS3Server();
    if (typeof started === 'string') skip = started;
    else server = started;
  });
  after(async () => {
    for (const store of stores) store.destroy();
    await server?.close();
  });

  it('signs presigned URLs so that only the exact link works', async (t) => {
    if (skip) return t.skip(skip);
    const store = open();
    await store.putBuffer('signed.mp4', Buffer.from('video bytes'), 'video/mp4');
    const url = new URL(await store.presignedGetUrl('signed.mp4', { expiresInSeconds: 120, contentType: 'video/mp4' }));
    assert.equal(url.searchParams.get('X-Amz-Expires'), '120');
    assert.equal((await fetch(url)).status, 200);
    const tampered = new URL(url);
    tampered.searchParams.set('response-content-type', 'text/html');
    assert.equal((await fetch(tampered)).status, 403, 'the response overrides are part of the signature');
    const unsigned = `${server!.endpoint}/${server!.bucket}/signed.mp4`;
    assert.equal((await fetch(unsigned)).status, 403, 'the bucket is private');
  });

  it('presigns for the public endpoint when clients reach S3 by another address', async (t) => {
    if (skip) return t.skip(skip);
    const publicEndpoint = server!.endpoint.replace('127.0.0.1', 'localhost');
    const store = open({ publicEndpoint });
    await store.putBuffer('public.mp4', Buffer.from('public'), 'video/mp4');
    const url = await store.presignedGetUrl('public.mp4', {
      expiresInSeconds: 60,
      contentType: 'video/mp4',
      filename: 'vidéo "1".mp4',
    });
    assert.ok(url.startsWith(`${publicEndpoint}/`), url);
    const res = await fetch(url);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), 'public');
    assert.equal(
      res.headers.get('content-disposition'),
      `inline; filename="vid_o _1_.mp4"; filename*=UTF-8''vid%C3%A9o%20%221%22.mp4`,
    );
  });

  it('keeps each prefix in its own part of the bucket', async (t) => {
    if (skip) return t.skip(skip);
    const tenant = open({ prefix: '/tenant-a/' });
    const root = open();
    await tenant.putBuffer('tasks/x.mp4', Buffer.from('x'), 'video/mp4');
    assert.deepEqual(await root.stat('tenant-a/tasks/x.mp4'), { size: 1 });
    assert.equal(await root.stat('tasks/x.mp4'), undefined);
    assert.throws(() => open({ prefix: '../escape' }), /invalid blob key/);
  });

  it('serves more concurrent downloads than the SDK pools by default', async (t) => {
    if (skip) return t.skip(skip);
    const store = open();
    // Large enough that a response cannot arrive whole before it is read: each open download
    // holds its socket until drained, and the SDK's own pool has 50.
    await store.putBuffer('popular.mp4', Buffer.alloc(4 * 1024 * 1024), 'video/mp4');
    // A pool too small never answers: the limit that tells a deadlock from a slow machine is derived
    // from the same work done where no pool can block it (10 downloads and a stat), on this machine, now.
    const started = Date.now();
    const open10 = await Promise.all(Array.from({ length: 10 }, () => store.read('popular.mp4')));
    await store.stat('popular.mp4');
    for (const stream of open10) stream.destroy();
    const limit = 50 * (Date.now() - started) + 1000;
    const open60 = await withLimit(Promise.all(Array.from({ length: 60 }, () => store.read('popular.mp4'))), limit);
    try {
      assert.deepEqual(await withLimit(store.stat('popular.mp4'), limit), { size: 4 * 1024 * 1024 });
    } finally {
      for (const stream of open60) stream.destroy();
    }
  });

  it('reports a wrong secret clearly, without the secret', async (t) => {
    if (skip) return t.skip(skip);
    const secret = 'wrong-secret-1234567890';
    const store = open({ credentials: { accessKeyId: server!.credentials.accessKeyId, secretAccessKey: secret } });
    for (const call of [
      () => store.putBuffer('k', Buffer.from('x'), 'text/plain'),
      () => store.readBuffer('k'),
      () => store.stat('k'),
      () => store.check(),
    ]) {
      const err = await call().then(
        () => assert.fail('should have failed'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof S3BlobStoreError, inspect(err));
      assert.match(err.message, /access denied|secret access key does not match/);
      assert.equal(err.cause, undefined);
      for (const shown of [err.message, err.stack ?? '', inspect(err, { depth: 5 }), JSON.stringify(err)])
        assert.ok(!shown.includes(secret), shown);
    }
  });

  it('names the cause of a failed readiness check', async (t) => {
    if (skip) return t.skip(skip);
    await assert.rejects(
      open({ bucket: 'no-such-bucket' }).check(),
      /HeadBucket s3:\/\/no-such-bucket failed: the bucket does not exist/,
    );
    await assert.rejects(open({ region: 'us-west-2' }).check(), S3BlobStoreError);
    const closed = await closedPort();
    await assert.rejects(
      open({ endpoint: `http://127.0.0.1:${closed}` }).check(),
      /the S3 endpoint is unreachable \(ECONNREFUSED/,
    );
  });
});

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Fails a call that has not answered within `ms`, 50 times what the same work took unblocked. */
function withLimit<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${ms} ms (50 times the unblocked run): a pool deadlock`)),
      ms,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
