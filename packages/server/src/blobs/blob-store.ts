import type { Readable } from 'node:stream';

export interface BlobInfo {
  size: number;
}

export interface ByteRange {
  /** First byte, inclusive. */
  start: number;
  /** Last byte, inclusive. */
  end: number;
}

/**
 * Where videos and uploaded files live. Writes are atomic: a reader sees a whole blob or
 * none (invariant 3, docs/architecture.md: nothing half-written is ever served).
 */
export interface BlobStore {
  putFile(key: string, path: string, contentType: string): Promise<BlobInfo>;
  putBuffer(key: string, data: Buffer, contentType: string): Promise<BlobInfo>;
  stat(key: string): Promise<BlobInfo | undefined>;
  read(key: string, range?: ByteRange): Promise<Readable>;
  /**
   * The bytes of a range at once, read synchronously into `into` (at least the range's length),
   * returned as the part of it they fill. Only stores whose reads are cheap and local offer it
   * (local disk): a download of a short video then costs one socket write and none of a stream's
   * machinery (docs/performance.md). Throws ENOENT for a missing key.
   */
  readNow?(key: string, range: ByteRange, into: Buffer): Buffer;
  readBuffer(key: string): Promise<Buffer>;
  delete(key: string): Promise<void>;
  /** Can the store answer readiness checks (disk writable, bucket reachable)? */
  check(): Promise<void>;
  /**
   * A URL that serves the blob to anyone holding it until it expires, without passing through
   * this service. Only stores that can sign such links offer it (S3 does, local disk does not);
   * the content route redirects there so the API process never carries the video bytes.
   */
  presignedGetUrl?(key: string, options: PresignedGetOptions): Promise<string>;
}

export interface PresignedGetOptions {
  expiresInSeconds: number;
  /** Served as the response's Content-Type, whatever the blob was stored with. */
  contentType: string;
  /** Suggested download name, served as `Content-Disposition: inline; filename=…`. */
  filename?: string;
}

/**
 * Reading a key that does not exist. `code` is ENOENT so callers treat every store the way
 * they already treat a missing file on disk.
 */
export class BlobNotFoundError extends Error {
  readonly code = 'ENOENT';

  constructor(key: string) {
    super(`blob not found: ${JSON.stringify(key)}`);
    this.name = 'BlobNotFoundError';
  }
}

/** Keys are relative paths of plain segments; anything else is a programming error. */
export function assertBlobKey(key: string): void {
  if (!/^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/.test(key) || key.includes('..')) {
    throw new Error(`invalid blob key: ${JSON.stringify(key)}`);
  }
}
