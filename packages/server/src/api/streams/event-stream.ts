import { PassThrough } from 'node:stream';

/**
 * Bytes a stream may hold for a client that does not read them: far more than a task sends
 * between two reads of a live client (an event is a poll body, under 2 KB). A client past it is let
 * go; it reconnects with `Last-Event-ID` and misses nothing (docs/streams.md).
 */
const MAX_BUFFERED_BYTES = 256 * 1024;

/**
 * One `text/event-stream` answer, written as the Server-Sent Events format frames it: an event is
 * `id:` and one `data:` line (JSON never holds a raw line break), a heartbeat is a comment line.
 */
export class EventStream {
  /** What the route sends: Fastify pipes it to the response, with the route's headers. */
  readonly body = new PassThrough();
  private ended = false;

  /** `retryMs`: how long a client waits before reconnecting, when the stream ends without its final event. */
  constructor(retryMs: number) {
    this.write(`retry: ${retryMs}\n\n`);
  }

  get open(): boolean {
    return !this.ended && !this.body.destroyed;
  }

  event(id: string, data: string): void {
    this.write(`id: ${id}\ndata: ${data}\n\n`);
  }

  ping(): void {
    this.write(': ping\n\n');
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.body.end();
  }

  private write(frame: string): void {
    if (!this.open) return;
    this.body.write(frame);
    if (this.body.writableLength > MAX_BUFFERED_BYTES) this.body.destroy();
  }
}
