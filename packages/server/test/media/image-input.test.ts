import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import zlib from 'node:zlib';
import sharp from 'sharp';
import {
  ImageRejected,
  decodeDataUri,
  normalizeImage,
  sniffImageType,
  type ImageRejectCode,
} from '../../src/media/image-input.ts';

const solid = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 90 } } });
const pngOf = (width: number, height: number) => solid(width, height).png().toBuffer();
const jpegOf = (width: number, height: number) => solid(width, height).jpeg().toBuffer();
const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

function rejects(fn: () => unknown, code: ImageRejectCode): ImageRejected {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ImageRejected, `expected ImageRejected, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    return err;
  }
  return assert.fail(`expected ${code}`);
}

async function rejectsAsync(promise: Promise<unknown>, code: ImageRejectCode): Promise<ImageRejected> {
  const err = await promise.then(
    () => assert.fail(`expected ${code}`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ImageRejected, `expected ImageRejected, got ${String(err)}`);
  assert.equal(err.code, code, err.message);
  return err;
}

/** A PNG whose header claims a huge canvas over almost no data: a decompression-bomb shape. */
function pngClaiming(width: number, height: number, dataBytes = 64): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    signature,
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(Buffer.alloc(dataBytes))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('sniffImageType', () => {
  it('recognises PNG and JPEG by their magic bytes only', async () => {
    assert.equal(sniffImageType(await pngOf(2, 2)), 'image/png');
    assert.equal(sniffImageType(await jpegOf(2, 2)), 'image/jpeg');
    assert.equal(sniffImageType(GIF), undefined);
    assert.equal(sniffImageType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')), undefined);
    assert.equal(sniffImageType(Buffer.alloc(0)), undefined);
    assert.equal(sniffImageType(Buffer.from([0x89, 0x50, 0x4e])), undefined);
    assert.equal(sniffImageType(Buffer.from([0xff, 0xd8])), undefined);
  });
});

describe('decodeDataUri', () => {
  it('decodes the two accepted prefixes', async () => {
    const png = await pngOf(3, 3);
    const jpeg = await jpegOf(3, 3);
    assert.deepEqual(decodeDataUri(`data:image/png;base64,${png.toString('base64')}`), {
      mimeType: 'image/png',
      bytes: png,
    });
    assert.deepEqual(decodeDataUri(`data:image/jpeg;base64,${jpeg.toString('base64')}`), {
      mimeType: 'image/jpeg',
      bytes: jpeg,
    });
  });

  it('leaves URLs of any scheme to the fetcher', () => {
    for (const url of [
      'https://example.com/a.png',
      'http://127.0.0.1/x',
      'ftp://example.com/a.png',
      'file:///etc/passwd',
    ]) {
      assert.equal(decodeDataUri(url), undefined, url);
    }
  });

  it('names bare Base64 as a missing prefix', async () => {
    const bare = (await pngOf(2, 2)).toString('base64');
    const err = rejects(() => decodeDataUri(bare), 'image_prefix_missing');
    assert.match(err.message, /data:image\/jpeg;base64,/);
    const bareJpeg = (await jpegOf(2, 2)).toString('base64');
    rejects(() => decodeDataUri(bareJpeg), 'image_prefix_missing');
    rejects(() => decodeDataUri('image/png;base64,iVBORw0KGgo='), 'image_prefix_missing');
  });

  it('refuses other data URI prefixes', () => {
    const gif = `data:image/gif;base64,${GIF.toString('base64')}`;
    for (const value of [
      gif,
      'data:image/png,iVBORw0KGgo=',
      'data:image/jpg;base64,/9j/',
      'data:text/plain;base64,aGk=',
      'DATA:image/png;base64,iVBORw0KGgo=',
      'data:image/png;charset=utf-8;base64,iVBORw0KGgo=',
      'data:',
    ]) {
      const err = rejects(() => decodeDataUri(value), 'image_prefix_unsupported');
      assert.match(err.message, /data:image\/png;base64,/);
    }
  });

  it('refuses Base64 that is not strict', () => {
    // The check runs before sniffing, so these only need to be wrong Base64, not images.
    for (const payload of [
      '',
      'iVBO Rw0KGgo=',
      'iVBORw0KGgo=\n',
      'iVBORw0KGgo',
      'iVBORw0KGgo==',
      'iVBORw0K-_go',
      '!!!!',
      'iV==BORw',
      '%69VBORw0KGgo=',
    ]) {
      rejects(() => decodeDataUri(`data:image/png;base64,${payload}`), 'image_base64_invalid');
    }
  });

  it('refuses content that does not match the declared type', async () => {
    const png = (await pngOf(2, 2)).toString('base64');
    const err = rejects(() => decodeDataUri(`data:image/jpeg;base64,${png}`), 'image_type_mismatch');
    assert.equal(err.message, 'The data URI declares image/jpeg but its content is a PNG image.');
    const jpeg = (await jpegOf(2, 2)).toString('base64');
    rejects(() => decodeDataUri(`data:image/png;base64,${jpeg}`), 'image_type_mismatch');
    const text = rejects(
      () => decodeDataUri(`data:image/png;base64,${Buffer.from('hello world!').toString('base64')}`),
      'image_type_mismatch',
    );
    assert.match(text.message, /is not a JPEG or PNG image/);
  });
});

describe('normalizeImage', () => {
  it('re-encodes a PNG as PNG with its size', async () => {
    const out = await normalizeImage(await pngOf(64, 48), { maxPixels: 10_000 });
    assert.equal(sniffImageType(out.png), 'image/png');
    assert.deepEqual([out.width, out.height], [64, 48]);
  });

  it('turns a JPEG upright from its EXIF orientation and strips all metadata', async () => {
    // Orientation 6: stored 64x32, displayed rotated 90° clockwise, i.e. 32x64.
    const jpeg = await solid(64, 32).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    assert.equal((await sharp(jpeg).metadata()).orientation, 6);
    const out = await normalizeImage(jpeg, { maxPixels: 10_000 });
    assert.deepEqual([out.width, out.height], [32, 64]);
    const meta = await sharp(out.png).metadata();
    assert.equal(meta.format, 'png');
    assert.deepEqual([meta.width, meta.height], [32, 64]);
    assert.equal(meta.orientation, undefined);
    assert.equal(meta.exif, undefined);
    assert.equal(meta.icc, undefined);
  });

  it('refuses images over the pixel cap, including a header-only bomb', async () => {
    const err = await rejectsAsync(normalizeImage(await pngOf(101, 100), { maxPixels: 10_000 }), 'image_too_large');
    assert.match(err.message, /101x100/);
    assert.ok((await normalizeImage(await pngOf(100, 100), { maxPixels: 10_000 })).png.length > 0);
    await rejectsAsync(normalizeImage(pngClaiming(60_000, 60_000), { maxPixels: 40_000_000 }), 'image_too_large');
  });

  it('refuses garbage, other formats and broken files', async () => {
    const png = await pngOf(32, 32);
    const inputs = [
      Buffer.from('definitely not an image'),
      Buffer.alloc(0),
      GIF,
      Buffer.concat([png.subarray(0, 8), Buffer.from('garbage after a PNG signature')]),
      Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0, 0, 0]),
      pngClaiming(40, 40, 10) /* pixel data cut short */,
    ];
    for (const input of inputs) {
      const err = await rejectsAsync(normalizeImage(input, { maxPixels: 10_000 }), 'image_invalid');
      assert.equal(err.message, 'The image could not be decoded as a JPEG or PNG file.');
    }
  });
});
