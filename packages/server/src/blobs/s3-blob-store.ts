import { createReadStream } from 'node:fs';
import { stat as statFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import {
  assertBlobKey,
  BlobNotFoundError,
  type BlobInfo,
  type BlobStore,
  type ByteRange,
  type PresignedGetOptions,
} from './blob-store.ts';
import { toS3BlobStoreError } from './s3-blob-store-error.ts';

export interface S3BlobStoreOptions {
  bucket: string;
  region: string;
  /** For S3-compatible services (MinIO, R2, …); unset means AWS itself. */
  endpoint?: string;
  /**
   * The endpoint written into presigned URLs, when clients reach the object store by another
   * address than this process does (the service talks to http://minio:9000, browsers to
   * https://files.example.com). Signing is offline, so this endpoint is never contacted.
   */
  publicEndpoint?: string;
  /** `https://host/bucket/key` instead of `https://bucket.host/key`; most self-hosted services need it. */
  forcePathStyle?: boolean;
  /** Unset means the SDK's default chain (AWS_ACCESS_KEY_ID…, profiles, instance roles). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Prepended to every key, so several deployments can share a bucket. */
  prefix?: string;
  /** Multipart part size; at least 8 MiB. */
  partSizeBytes?: number;
  /** Connections to S3 at once; every streamed download holds one for as long as it lasts. */
  maxSockets?: number;
}

const MiB = 1024 * 1024;
/** 8 MiB parts: above S3's 5 MiB floor, few enough requests per video, bounded memory per upload. */
const MIN_PART_SIZE = 8 * MiB;
/** S3 refuses a multipart upload of more parts than this. */
const MAX_PARTS = 10_000;
/** Parts uploaded at once; memory per upload is at most this times the part size. */
const QUEUE_SIZE = 4;
/**
 * The SDK's pool of 50 would make the 51st concurrent download wait for a free socket (a
 * download holds its socket while a slow client drains it), so the default is larger.
 */
const DEFAULT_MAX_SOCKETS = 256;
/** A dead endpoint fails readiness in seconds instead of hanging on the OS's connect timeout. */
const CONNECT_TIMEOUT_MS = 5_000;
/** SigV4 presigned URLs cannot live longer than a week. */
const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;

/**
 * Blobs as objects in one S3(-compatible) bucket. Writes are atomic by S3's nature: a PUT, or
 * the completion of a multipart upload, makes the whole new object visible at once or not at
 * all, and a reader that started on the old version keeps reading the old version. So unlike
 * the local disk store there is no temporary name to rename (invariant 3, docs/architecture.md holds as is).
 */
export class S3BlobStore implements BlobStore {
  private readonly client: S3Client;
  private readonly signingClient: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly partSize: number;

  constructor(options: S3BlobStoreOptions) {
    if (!options.bucket) throw new Error('S3BlobStore needs a bucket');
    if (!options.region) throw new Error('S3BlobStore needs a region');
    this.bucket = options.bucket;
    this.prefix = normalizePrefix(options.prefix);
    this.partSize = Math.max(MIN_PART_SIZE, options.partSizeBytes ?? MIN_PART_SIZE);
    this.client = new S3Client(clientConfig(options, options.endpoint));
    this.signingClient = options.publicEndpoint
      ? new S3Client(clientConfig(options, options.publicEndpoint))
      : this.client;
  }

  async putFile(key: string, path: string, contentType: string): Promise<BlobInfo> {
    const objectKey = this.objectKey(key);
    const { size } = await statFile(path);
    await this.upload(key, objectKey, createReadStream(path, { highWaterMark: MiB }), contentType, size);
    return { size };
  }

  async putBuffer(key: string, data: Buffer, contentType: string): Promise<BlobInfo> {
    await this.upload(key, this.objectKey(key), data, contentType, data.length);
    return { size: data.length };
  }

  async stat(key: string): Promise<BlobInfo | undefined> {
    const Key = this.objectKey(key);
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key }));
      return { size: head.ContentLength ?? 0 };
    } catch (err) {
      if (isMissingKey(err)) return undefined;
      throw toS3BlobStoreError(err, 'HEAD', this.where(key));
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    const Key = this.objectKey(key);
    // An empty slice has no valid Range header; S3 would answer 416.
    if (range && range.end < range.start) return Readable.from([]);
    const Range = range ? `bytes=${range.start}-${range.end}` : undefined;
    const body = await this.get(key, new GetObjectCommand({ Bucket: this.bucket, Key, Range }));
    // In Node the SDK's body is the IncomingMessage itself: a Readable that streams as it arrives.
    return body as Readable;
  }

  async readBuffer(key: string): Promise<Buffer> {
    const Key = this.objectKey(key);
    const body = await this.get(key, new GetObjectCommand({ Bucket: this.bucket, Key }));
    const bytes = await body.transformToByteArray();
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  async delete(key: string): Promise<void> {
    const Key = this.objectKey(key);
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key }));
    } catch (err) {
      // S3 answers 204 for a missing key; some compatible services say 404. Both mean "gone".
      if (isMissingKey(err)) return;
      throw toS3BlobStoreError(err, 'DELETE', this.where(key));
    }
  }

  async check(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (err) {
      const { $metadata } = err as { $metadata?: { httpStatusCode?: number } };
      // A HEAD answer has no body, so for a bucket a bare 404 can only mean it does not exist.
      const named = $metadata?.httpStatusCode === 404 ? { name: 'NoSuchBucket', $metadata } : err;
      throw toS3BlobStoreError(named, 'HeadBucket', `s3://${this.bucket}`);
    }
  }

  async presignedGetUrl(key: string, options: PresignedGetOptions): Promise<string> {
    const { expiresInSeconds, contentType, filename } = options;
    if (!Number.isInteger(expiresInSeconds) || expiresInSeconds < 1 || expiresInSeconds > MAX_PRESIGN_SECONDS) {
      throw new RangeError(
        `expiresInSeconds must be an integer from 1 to ${MAX_PRESIGN_SECONDS}, got ${expiresInSeconds}`,
      );
    }
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: this.objectKey(key),
      // The response overrides are signed too, so the link cannot be reused to serve another type.
      ResponseContentType: contentType,
      ResponseContentDisposition: filename === undefined ? undefined : inlineDisposition(filename),
    });
    try {
      return await getSignedUrl(this.signingClient, command, { expiresIn: expiresInSeconds });
    } catch (err) {
      throw toS3BlobStoreError(err, 'presign GET', this.where(key));
    }
  }

  /** Closes the client's pooled connections; the store is unusable afterwards. */
  destroy(): void {
    this.client.destroy();
    if (this.signingClient !== this.client) this.signingClient.destroy();
  }

  private async upload(
    key: string,
    Key: string,
    Body: Readable | Buffer,
    ContentType: string,
    size: number,
  ): Promise<void> {
    // Upload sends one PutObject when the body fits in a part, else a multipart upload that it
    // aborts on failure (no orphaned parts billed). Parts grow past 8 MiB only for files that
    // would otherwise need more than MAX_PARTS of them.
    const partSize = Math.max(this.partSize, Math.ceil(size / MAX_PARTS));
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key, Body, ContentType },
      partSize,
      queueSize: QUEUE_SIZE,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (err) {
      if (Body instanceof Readable) Body.destroy();
      throw toS3BlobStoreError(err, 'PUT', this.where(key));
    }
  }

  private async get(key: string, command: GetObjectCommand) {
    try {
      const out = await this.client.send(command);
      if (!out.Body) throw new Error('GetObject returned no body');
      return out.Body;
    } catch (err) {
      if (isMissingKey(err)) throw new BlobNotFoundError(key);
      throw toS3BlobStoreError(err, 'GET', this.where(key));
    }
  }

  private objectKey(key: string): string {
    assertBlobKey(key);
    return this.prefix + key;
  }

  private where(key: string): string {
    return `s3://${this.bucket}/${this.prefix}${key}`;
  }
}

function clientConfig(options: S3BlobStoreOptions, endpoint: string | undefined): S3ClientConfig {
  return {
    region: options.region,
    endpoint,
    forcePathStyle: options.forcePathStyle ?? false,
    credentials: options.credentials,
    requestHandler: {
      connectionTimeout: CONNECT_TIMEOUT_MS,
      httpAgent: { keepAlive: true, maxSockets: options.maxSockets ?? DEFAULT_MAX_SOCKETS },
      httpsAgent: { keepAlive: true, maxSockets: options.maxSockets ?? DEFAULT_MAX_SOCKETS },
    },
    // The SDK's default since 2025 adds CRC trailers (aws-chunked bodies) to every upload, which
    // many S3-compatible services reject. Content-MD5/CRC is then sent only where S3 demands it;
    // TLS already protects the bytes in transit.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  };
}

function normalizePrefix(prefix: string | undefined): string {
  const trimmed = (prefix ?? '').replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return '';
  assertBlobKey(trimmed);
  return `${trimmed}/`;
}

/** A missing object (404), as opposed to a missing bucket, which is a configuration error. */
function isMissingKey(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || (e.$metadata?.httpStatusCode === 404 && e.name !== 'NoSuchBucket');
}

/** RFC 6266: a plain-ASCII fallback name plus the exact name in RFC 5987 encoding. */
function inlineDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const exact = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `inline; filename="${ascii}"; filename*=UTF-8''${exact}`;
}
