import { closeSync, readSync } from 'node:fs';
import { Readable } from 'node:stream';

/**
 * The bytes `start`..`end` (inclusive) of an open file, read synchronously one chunk at a time as
 * the consumer asks for more, closing the file at the end or on destroy.
 *
 * Why synchronous: Node has no sendfile for sockets (fs.ReadStream, `send` and @fastify/send all
 * read through user space), so the cost to cut is per request, and on a busy machine each
 * thread-pool round trip (open, read, close) cost more CPU than reading a whole short video from
 * the page cache (bench/content.bench.ts: ~20 µs for 90 KB read synchronously, several hundred
 * through fs.createReadStream). A read blocks the event loop for one chunk at most, as nginx's
 * sendfile blocks its worker, and videos are read soon after they are written, from the page cache.
 */
export class FileSliceStream extends Readable {
  private position: number;

  constructor(
    private fd: number | undefined,
    start: number,
    private readonly end: number,
    private readonly chunkBytes: number,
  ) {
    super({ highWaterMark: chunkBytes });
    this.position = start;
  }

  override _read(): void {
    const fd = this.fd;
    if (fd === undefined) return;
    const wanted = Math.min(this.chunkBytes, this.end - this.position + 1);
    if (wanted <= 0) {
      this.push(null);
      return;
    }
    let chunk: Buffer;
    try {
      chunk = Buffer.allocUnsafe(wanted);
      const got = readSync(fd, chunk, 0, wanted, this.position);
      // The file shrank under us (it should not: blobs are written once): end short, the
      // Content-Length check of the client catches it.
      if (got === 0) {
        this.push(null);
        return;
      }
      this.position += got;
      if (got < wanted) chunk = chunk.subarray(0, got);
    } catch (err) {
      this.destroy(err as Error);
      return;
    }
    this.push(chunk);
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    callback(err);
  }
}
