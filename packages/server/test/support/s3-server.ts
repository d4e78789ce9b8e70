import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** A private S3-compatible endpoint on 127.0.0.1 for one test file. */
export interface TestS3Server {
  endpoint: string;
  region: string;
  bucket: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  close(): Promise<void>;
}

const REGION = 'eu-west-3';
// s3rver only knows this one key pair (its built-in dummy account).
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/**
 * s3rver (a real S3 emulator: REST routes, XML, multipart, metadata, response overrides) behind
 * two repairs, each where it would otherwise let a wrong client pass or fail a right one:
 * - it accepts any SigV4 signature (and unsigned requests), so a presigned URL that S3 would
 *   refuse would pass here: every request is verified below, as S3 does, before s3rver sees it;
 * - it overwrites objects in place and answers a PUT before the bytes are flushed, so readers
 *   could see a mix of versions, and it serves `bytes=0-0` as the whole object: its store is
 *   replaced by one that renames finished files into place and reads ranges exactly.
 * Returns a reason instead when it cannot start, so the caller can skip (under CI=true it throws).
 */
export async function startS3Server(bucket = 'vidgen-test'): Promise<TestS3Server | string> {
  let base: string | undefined;
  try {
    const { default: S3rver } = await import('s3rver');
    base = await mkdtemp(join(tmpdir(), 'vidgen-s3-'));
    const emulator = new S3rver({
      silent: true,
      directory: join(base, 'data'),
      configureBuckets: [{ name: bucket, configs: [] }],
    });
    const internals = emulator as unknown as { store: unknown; context: { store: unknown }; logger: { close(): void } };
    internals.store = internals.context.store = createAtomicStore(join(base, 'data'), join(base, 'tmp'));
    await emulator.configureBuckets();
    const handle = emulator.callback();
    const server = createServer((req, res) => {
      const denied = verifySigV4(req, Date.now());
      if (denied) return sendS3Error(req, res, denied);
      handle(req, res);
    });
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const dir = base;
    return {
      endpoint: `http://127.0.0.1:${port}`,
      region: REGION,
      bucket,
      credentials: { ...CREDENTIALS },
      async close() {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        internals.logger.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    if (base) await rm(base, { recursive: true, force: true });
    const reason = `the local S3 server (s3rver) could not start: ${(err as Error).message}`;
    // CI runs the S3 contract suite: a stand-in that cannot start is a failure there, never a skip.
    if (process.env.CI === 'true') throw new Error(`${reason} (CI=true: a missing service is a failure)`);
    return reason;
  }
}

interface S3Denial {
  status: number;
  code: string;
  message: string;
}

function sendS3Error(req: IncomingMessage, res: ServerResponse, denial: S3Denial): void {
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${denial.code}</Code><Message>${denial.message}</Message></Error>`;
  res.writeHead(denial.status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(xml) });
  // Drain the request body, so the client sees the answer rather than a reset connection.
  req.resume();
  res.end(req.method === 'HEAD' ? undefined : xml);
}

// ---- SigV4, verified independently of the SDK that signs (the S3 spec, not the client's code) ----

const deny = (code: string, message: string, status = 403): S3Denial => ({ status, code, message });
const sha256 = (data: string) => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();
const rfc3986 = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

interface SignedParts {
  credential: string;
  signedHeaders: string;
  signature: string;
  amzDate: string;
  payloadHash: string;
  expires?: number;
}

function verifySigV4(req: IncomingMessage, now: number): S3Denial | undefined {
  const [rawPath, rawQuery = ''] = (req.url ?? '/').split('?');
  const query = rawQuery
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const eq = pair.indexOf('=');
      const [k, v] = eq < 0 ? [pair, ''] : [pair.slice(0, eq), pair.slice(eq + 1)];
      return [decodeURIComponent(k), decodeURIComponent(v)] as const;
    });
  const parts = signedParts(req, new Map(query));
  if ('status' in parts) return parts;
  const [accessKeyId, date, region, service, terminator] = parts.credential.split('/');
  if (accessKeyId !== CREDENTIALS.accessKeyId)
    return deny('InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
  if (region !== REGION)
    return deny('AuthorizationHeaderMalformed', `The region '${region}' is wrong; expecting '${REGION}'`, 400);
  if (service !== 's3' || terminator !== 'aws4_request' || date !== parts.amzDate.slice(0, 8))
    return deny('AuthorizationHeaderMalformed', 'Bad credential scope.', 400);
  const signedAt = Date.parse(parts.amzDate.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z'));
  if (parts.expires !== undefined && now > signedAt + parts.expires * 1000)
    return deny('AccessDenied', 'Request has expired');
  if (parts.expires === undefined && Math.abs(now - signedAt) > 15 * 60_000)
    return deny('RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.');
  const canonicalQuery = query
    .filter(([k]) => k !== 'X-Amz-Signature')
    .map(([k, v]) => [rfc3986(k), rfc3986(v)])
    .sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : 1) : a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonicalUri = rawPath
    .split('/')
    .map((s) => rfc3986(decodeURIComponent(s)))
    .join('/');
  const names = parts.signedHeaders.split(';');
  if (!names.includes('host')) return deny('AccessDenied', 'The host header must be signed.');
  const canonicalHeaders = names.map((n) => `${n}:${headerValue(req, n)}\n`).join('');
  const canonicalRequest = [
    req.method,
    canonicalUri,
    canonicalQuery,
    canonicalHeaders,
    parts.signedHeaders,
    parts.payloadHash,
  ].join('\n');
  const scope = `${date}/${region}/s3/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', parts.amzDate, scope, sha256(canonicalRequest)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${CREDENTIALS.secretAccessKey}`, date), region), 's3'), 'aws4_request');
  const expected = Buffer.from(hmac(key, stringToSign).toString('hex'));
  const given = Buffer.from(parts.signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    return deny(
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
    );
  }
  return undefined;
}

/** The signature's inputs, from the Authorization header or from a presigned URL's query. */
function signedParts(req: IncomingMessage, query: Map<string, string>): SignedParts | S3Denial {
  const auth = req.headers.authorization;
  if (auth !== undefined) {
    const m = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/.exec(
      auth,
    );
    if (!m) return deny('AuthorizationHeaderMalformed', 'The authorization header is malformed.', 400);
    const payloadHash = headerValue(req, 'x-amz-content-sha256');
    const amzDate = headerValue(req, 'x-amz-date');
    if (!payloadHash || !amzDate)
      return deny('InvalidRequest', 'x-amz-content-sha256 and x-amz-date are required.', 400);
    // s3rver would store aws-chunked framing as object bytes; a client must not send it here.
    if (payloadHash.startsWith('STREAMING-'))
      return deny('NotImplemented', 'aws-chunked uploads are not supported by this test server.', 501);
    return { credential: m[1], signedHeaders: m[2], signature: m[3], amzDate, payloadHash };
  }
  if (query.get('X-Amz-Algorithm') === 'AWS4-HMAC-SHA256') {
    const get = (k: string) => query.get(`X-Amz-${k}`) ?? '';
    return {
      credential: get('Credential'),
      signedHeaders: get('SignedHeaders'),
      signature: get('Signature'),
      amzDate: get('Date'),
      payloadHash: query.get('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD',
      expires: Number(get('Expires')),
    };
  }
  // The bucket is private, as a real one should be: unsigned requests are refused.
  return deny('AccessDenied', 'Access Denied');
}

function headerValue(req: IncomingMessage, name: string): string {
  const value = req.headers[name];
  const joined = Array.isArray(value) ? value.join(',') : (value ?? '');
  return joined.trim().replace(/\s+/g, ' ');
}

// ---- s3rver's filesystem store, with atomic replacement and exact ranges ----

type FilesystemStoreClass = new (root: string) => StoreBase;
interface StoreBase {
  getResourcePath(bucket: string, key: string, resource: string): string;
  getMetadata(bucket: string, key: string): Promise<Record<string, string | number>>;
  putMetadata(bucket: string, key: string, metadata: unknown, md5: string): Promise<void>;
  deleteObject(bucket: string, key: string): Promise<void>;
}
interface S3ObjectLike {
  bucket: string;
  key: string;
  content: Buffer | Readable;
  metadata: unknown;
  range?: { start: number; end: number };
}

function createAtomicStore(root: string, tmpRoot: string): StoreBase {
  const require = createRequire(import.meta.url);
  const FilesystemStore = require('s3rver/lib/stores/filesystem.js') as FilesystemStoreClass;
  const S3Object = require('s3rver/lib/models/object.js') as new (
    b: string,
    k: string,
    c: Readable | null,
    m: unknown,
  ) => S3ObjectLike;
  // One lock per key: the object file and its metadata files change, and are read, together.
  const locks = new Map<string, Promise<unknown>>();
  const locked = <T>(bucket: string, key: string, run: () => Promise<T>): Promise<T> => {
    const id = `${bucket}/${key}`;
    const result = (locks.get(id) ?? Promise.resolve()).then(run, run);
    const tail = result.catch(() => undefined);
    locks.set(id, tail);
    void tail.then(() => locks.get(id) === tail && locks.delete(id));
    return result;
  };
  let counter = 0;

  class AtomicStore extends FilesystemStore {
    async putObject(object: S3ObjectLike): Promise<{ size: number; md5: string }> {
      await mkdir(tmpRoot, { recursive: true });
      const tmp = join(tmpRoot, `${process.pid}-${counter++}.part`);
      const md5 = createHash('md5');
      let size = 0;
      const count = new Transform({
        transform(chunk: Buffer, _enc, done) {
          md5.update(chunk);
          size += chunk.length;
          done(null, chunk);
        },
      });
      const source = Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content;
      try {
        await pipeline(source, count, createWriteStream(tmp));
        const digest = md5.digest('hex');
        return await locked(object.bucket, object.key, async () => {
          const target = this.getResourcePath(object.bucket, object.key, 'object');
          await mkdir(dirname(target), { recursive: true });
          await rename(tmp, target);
          await this.putMetadata(object.bucket, object.key, object.metadata, digest);
          return { size, md5: digest };
        });
      } finally {
        await rm(tmp, { force: true });
      }
    }

    getObject(bucket: string, key: string, options?: { start?: number; end?: number }): Promise<S3ObjectLike | null> {
      return locked(bucket, key, async () => {
        let metadata: Record<string, string | number>;
        try {
          metadata = await this.getMetadata(bucket, key);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
          throw err;
        }
        const size = Number(metadata['content-length']);
        const ranged = options !== undefined && (options.start !== undefined || options.end !== undefined);
        const range = { start: options?.start ?? 0, end: Math.min(options?.end ?? Infinity, size - 1) };
        if (ranged && range.start > range.end)
          return Object.assign(new S3Object(bucket, key, null, metadata), { range });
        // Opened under the lock: a later rename replaces the name, not the file this stream reads.
        const content = await openStream(this.getResourcePath(bucket, key, 'object'), size === 0 ? undefined : range);
        const object = new S3Object(bucket, key, content, metadata);
        return ranged ? Object.assign(object, { range }) : object;
      });
    }

    deleteObject(bucket: string, key: string): Promise<void> {
      return locked(bucket, key, () => super.deleteObject(bucket, key));
    }
  }
  return new AtomicStore(root);
}

function openStream(path: string, range: { start: number; end: number } | undefined): Promise<Readable> {
  return new Promise((resolve, reject) => {
    const stream = createReadStream(path, range)
      .once('error', reject)
      .once('open', () => resolve(stream));
  });
}
