import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import type { BlobStore, ByteRange } from './blob-store.ts';

export interface BlobStoreFixture {
  store: BlobStore;
  close(): Promise<void>;
}

const MiB = 1024 * 1024;
/** Larger than two 8 MiB parts, so an S3 store takes the multipart path, with a short last part. */
const LARGE = 20 * MiB + 12_345;
const INVALID_KEYS = [
  '',
  '/abs',
  '../up',
  'a/../b',
  'a//b',
  'a/',
  '.hidden',
  'a/.b',
  'sp ace',
  'back\\slash',
  'a?b',
  'é',
];

/**
 * What every blob store must do, run against each implementation (local disk, S3). `open`
 * returns a string instead of a fixture when the store cannot run here; the cases then skip.
 */
export function blobStoreContract(name: string, open: () => Promise<BlobStoreFixture | string>) {
  describe(`blob store contract: ${name}`, () => {
    let fx: BlobStoreFixture;
    let skip: string | undefined;
    let scratch: string;
    let n = 0;
    // Every case writes under its own keys, so cases never see each other's blobs.
    const key = (suffix: string) => `contract/${n}/${suffix}`;

    before(async () => {
      scratch = await mkdtemp(join(tmpdir(), 'vidgen-blob-contract-'));
      const opened = await open();
      if (typeof opened === 'string') skip = opened;
      else fx = opened;
    });
    after(async () => {
      await fx?.close();
      await rm(scratch, { recursive: true, force: true });
    });
    const start = (t: { skip(message: string): void }) => {
      n++;
      if (skip) t.skip(skip);
      return !skip;
    };

    it('round-trips a buffer and a file, and stats their sizes', async (t) => {
      if (!start(t)) return;
      const bytes = randomBytes(10_000);
      assert.deepEqual(await fx.store.putBuffer(key('buffer.bin'), bytes, 'application/octet-stream'), {
        size: 10_000,
      });
      assert.deepEqual(await fx.store.readBuffer(key('buffer.bin')), bytes);
      assert.deepEqual(await buffer(await fx.store.read(key('buffer.bin'))), bytes);
      const file = join(scratch, 'upload.bin');
      await writeFile(file, bytes.subarray(0, 777));
      assert.deepEqual(await fx.store.putFile(key('file.bin'), file, 'video/mp4'), { size: 777 });
      assert.deepEqual(await fx.store.readBuffer(key('file.bin')), bytes.subarray(0, 777));
      assert.deepEqual(await fx.store.stat(key('buffer.bin')), { size: 10_000 });
      assert.deepEqual(await fx.store.stat(key('file.bin')), { size: 777 });
    });

    it('stores an empty blob', async (t) => {
      if (!start(t)) return;
      assert.deepEqual(await fx.store.putBuffer(key('empty'), Buffer.alloc(0), 'text/plain'), { size: 0 });
      assert.deepEqual(await fx.store.stat(key('empty')), { size: 0 });
      assert.equal((await fx.store.readBuffer(key('empty'))).length, 0);
      assert.equal((await buffer(await fx.store.read(key('empty')))).length, 0);
    });

    it('reads inclusive byte ranges: first bytes, first byte, middle, last byte, whole', async (t) => {
      if (!start(t)) return;
      const bytes = randomBytes(1000);
      await fx.store.putBuffer(key('ranged'), bytes, 'application/octet-stream');
      const ranges: ByteRange[] = [
        { start: 0, end: 9 },
        { start: 0, end: 0 },
        { start: 100, end: 199 },
        { start: 999, end: 999 },
        { start: 0, end: 999 },
      ];
      for (const range of ranges) {
        const got = await buffer(await fx.store.read(key('ranged'), range));
        assert.deepEqual(got, bytes.subarray(range.start, range.end + 1), `range ${range.start}-${range.end}`);
        if (fx.store.readNow)
          assert.deepEqual(
            fx.store.readNow(key('ranged'), range, Buffer.alloc(2000, 7)),
            got,
            `readNow ${range.start}-${range.end}`,
          );
      }
    });

    it('reports a missing key: stat is undefined, reads reject with ENOENT', async (t) => {
      if (!start(t)) return;
      assert.equal(await fx.store.stat(key('missing')), undefined);
      await assert.rejects(fx.store.read(key('missing')), { code: 'ENOENT' });
      await assert.rejects(fx.store.read(key('missing'), { start: 0, end: 0 }), { code: 'ENOENT' });
      await assert.rejects(fx.store.readBuffer(key('missing')), { code: 'ENOENT' });
      if (fx.store.readNow)
        assert.throws(() => fx.store.readNow?.(key('missing'), { start: 0, end: 0 }, Buffer.alloc(1)), {
          code: 'ENOENT',
        });
    });

    it('replaces a blob atomically: every read sees one whole version', async (t) => {
      if (!start(t)) return;
      const a = Buffer.alloc(3 * MiB, 'a');
      const b = Buffer.alloc(2 * MiB + 123, 'b');
      const whole = (got: Buffer, what: string) =>
        assert.ok(got.equals(a) || got.equals(b), `${what} saw neither whole version but ${got.length} bytes`);
      await fx.store.putBuffer(key('versions'), a, 'application/octet-stream');
      const openedBefore = await fx.store.read(key('versions'));
      let writing = true;
      const writer = async () => {
        for (let i = 0; i < 4; i++)
          await fx.store.putBuffer(key('versions'), i % 2 === 0 ? b : a, 'application/octet-stream');
        writing = false;
      };
      const reader = async () => {
        do {
          whole(await fx.store.readBuffer(key('versions')), 'readBuffer');
          whole(await buffer(await fx.store.read(key('versions'))), 'read');
          const size = (await fx.store.stat(key('versions')))?.size;
          assert.ok(size === a.length || size === b.length, `stat saw ${size}`);
        } while (writing);
      };
      await Promise.all([writer(), reader(), reader(), reader()]);
      whole(await buffer(openedBefore), 'a stream opened before the overwrite');
      assert.deepEqual(await fx.store.readBuffer(key('versions')), a);
      assert.deepEqual(await fx.store.stat(key('versions')), { size: a.length });
    });

    it('deletes idempotently', async (t) => {
      if (!start(t)) return;
      await fx.store.putBuffer(key('doomed'), Buffer.from('x'), 'text/plain');
      await fx.store.delete(key('doomed'));
      assert.equal(await fx.store.stat(key('doomed')), undefined);
      await assert.rejects(fx.store.readBuffer(key('doomed')), { code: 'ENOENT' });
      await fx.store.delete(key('doomed'));
      await fx.store.delete(key('never-existed'));
    });

    it('keeps keys with slashes apart', async (t) => {
      if (!start(t)) return;
      await fx.store.putBuffer(key('tasks/2024/one.mp4'), Buffer.from('one'), 'video/mp4');
      await fx.store.putBuffer(key('tasks/2024/two.mp4'), Buffer.from('two'), 'video/mp4');
      await fx.store.putBuffer(key('tasks/2025/one.mp4'), Buffer.from('three'), 'video/mp4');
      assert.equal((await fx.store.readBuffer(key('tasks/2024/one.mp4'))).toString(), 'one');
      assert.equal((await fx.store.readBuffer(key('tasks/2025/one.mp4'))).toString(), 'three');
      await fx.store.delete(key('tasks/2024/one.mp4'));
      assert.equal(await fx.store.stat(key('tasks/2024/one.mp4')), undefined);
      assert.deepEqual(await fx.store.stat(key('tasks/2024/two.mp4')), { size: 3 });
      assert.deepEqual(await fx.store.stat(key('tasks/2025/one.mp4')), { size: 5 });
    });

    it('rejects invalid keys in every method', async (t) => {
      if (!start(t)) return;
      const file = join(scratch, 'valid.bin');
      await writeFile(file, 'x');
      const s = fx.store;
      for (const bad of INVALID_KEYS) {
        const calls: Array<() => Promise<unknown>> = [
          () => s.putBuffer(bad, Buffer.from('x'), 'text/plain'),
          () => s.putFile(bad, file, 'text/plain'),
          () => s.stat(bad),
          () => s.read(bad),
          () => s.read(bad, { start: 0, end: 0 }),
          () => s.readBuffer(bad),
          () => s.delete(bad),
          () =>
            s.presignedGetUrl?.(bad, { expiresInSeconds: 60, contentType: 'video/mp4' }) ??
            Promise.reject(new Error('invalid blob key')),
        ];
        // Called directly, not wrapped: a method that throws instead of rejecting fails here.
        for (const call of calls) await assert.rejects(call(), /invalid blob key/, JSON.stringify(bad));
      }
    });

    it('round-trips a large file byte for byte, whole and across part boundaries', async (t) => {
      if (!start(t)) return;
      const bytes = randomBytes(LARGE);
      const file = join(scratch, 'large.bin');
      await writeFile(file, bytes);
      assert.deepEqual(await fx.store.putFile(key('large.mp4'), file, 'video/mp4'), { size: LARGE });
      assert.deepEqual(await fx.store.stat(key('large.mp4')), { size: LARGE });
      assert.equal(
        await sha256(await fx.store.read(key('large.mp4'))),
        createHash('sha256').update(bytes).digest('hex'),
      );
      for (const at of [8 * MiB, 16 * MiB]) {
        const range = { start: at - 10, end: at + 9 };
        assert.deepEqual(await buffer(await fx.store.read(key('large.mp4'), range)), bytes.subarray(at - 10, at + 10));
      }
      const tail = { start: LARGE - 5, end: LARGE - 1 };
      assert.deepEqual(await buffer(await fx.store.read(key('large.mp4'), tail)), bytes.subarray(LARGE - 5));
    });

    it('answers the readiness check', async (t) => {
      if (!start(t)) return;
      await fx.store.check();
    });

    it('presigns GET URLs that a plain fetch can follow (stores that offer them)', async (t) => {
      if (!start(t)) return;
      const presign = fx.store.presignedGetUrl?.bind(fx.store);
      if (!presign) return t.skip('this store does not offer presigned URLs; the content route streams instead');
      const bytes = randomBytes(5000);
      await fx.store.putBuffer(key('signed/video.mp4'), bytes, 'application/octet-stream');
      const url = await presign(key('signed/video.mp4'), {
        expiresInSeconds: 300,
        contentType: 'video/mp4',
        filename: 'task 1.mp4',
      });
      const whole = await fetch(url);
      assert.equal(whole.status, 200);
      assert.equal(whole.headers.get('content-type'), 'video/mp4');
      assert.match(whole.headers.get('content-disposition') ?? '', /^inline; filename="task 1\.mp4"/);
      assert.deepEqual(Buffer.from(await whole.arrayBuffer()), bytes);
      // Players seek with Range requests against wherever the content route redirected them.
      const part = await fetch(url, { headers: { range: 'bytes=100-199' } });
      assert.equal(part.status, 206);
      assert.deepEqual(Buffer.from(await part.arrayBuffer()), bytes.subarray(100, 200));
      await assert.rejects(
        presign(key('signed/video.mp4'), { expiresInSeconds: 0, contentType: 'video/mp4' }),
        RangeError,
      );
    });
  });
}

async function sha256(stream: Readable): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
