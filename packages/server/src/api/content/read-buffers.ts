import type { ServerResponse } from 'node:http';

/** Smallest buffer handed out: short variants (posters) share one size. */
const MIN_BYTES = 64 * 1024;
/** Most bytes kept for reuse, over all sizes: enough for dozens of concurrent short downloads. */
const MAX_KEPT_BYTES = 16 * 1024 * 1024;

/**
 * Buffers for the downloads read at once, reused once the socket has taken their bytes.
 *
 * A new buffer per download made V8 count ~0.1 MB of outside memory per request and run a full
 * collection every ~60 MB of it: at a few thousand downloads a second, five mark-compacts a second
 * and about a fifth of the process's CPU (docs/performance.md). Reusing a few buffers ends that.
 *
 * A buffer comes back only after the response's `finish`: by then every write of the answer has
 * completed, so the bytes are in the kernel and nothing reads the buffer any more. A response that
 * ends any other way (the client went away mid-write) leaves its buffer to the garbage collector,
 * so no buffer can ever be refilled while a write still reads it: one client can never receive
 * bytes read for another.
 */
export class ReadBuffers {
  /** Free buffers by size (powers of two). */
  private readonly free = new Map<number, Buffer[]>();
  private keptBytes = 0;

  /** A buffer of at least `bytes`, handed back to the pool when `response` has finished. */
  take(bytes: number, response: ServerResponse): Buffer {
    const size = Math.max(MIN_BYTES, 2 ** Math.ceil(Math.log2(bytes)));
    let buffer = this.free.get(size)?.pop();
    if (buffer) this.keptBytes -= size;
    else buffer = Buffer.allocUnsafeSlow(size);
    const taken = buffer;
    response.once('finish', () => this.giveBack(taken));
    return buffer;
  }

  private giveBack(buffer: Buffer): void {
    if (this.keptBytes + buffer.length > MAX_KEPT_BYTES) return;
    const list = this.free.get(buffer.length);
    if (list) list.push(buffer);
    else this.free.set(buffer.length, [buffer]);
    this.keptBytes += buffer.length;
  }
}
