import { ApiError, TooManyRequests } from '../../errors.ts';
import type { EventStream } from './event-stream.ts';

/** When an account over its bound may try again: streams free up as their tasks end, and long-polls serve meanwhile. */
const RETRY_AFTER_SECONDS = 10;

export interface OpenStreamsOptions {
  /** Streams one account may hold open in this process (VIDGEN_MAX_STREAMS_PER_ACCOUNT). */
  maxPerAccount: number;
  /** How often every open stream sends its heartbeat (VIDGEN_STREAM_HEARTBEAT_SECONDS). */
  heartbeatMs: number;
  /**
   * How long one stream may last (VIDGEN_STREAM_MAX_SECONDS): then it is ended, at a heartbeat, and
   * its client reconnects with `Last-Event-ID`, its key checked again (a revoked key's streams end
   * within this) and its connection balanced anew (new API processes get their share).
   */
  maxLifetimeMs: number;
  clock: () => number;
}

/**
 * The task streams this process serves: bounded per account, kept alive by one heartbeat timer
 * for all of them, and ended together when the server stops, so a drain never waits on them.
 */
export class OpenStreams {
  private readonly perAccount = new Map<string, number>();
  private readonly streams = new Map<EventStream, { finish: () => void; endsAt: number }>();
  private timer: NodeJS.Timeout | undefined;
  private closing = false;

  constructor(private readonly options: OpenStreamsOptions) {}

  /**
   * Counts a new stream of the account, or refuses it (429 over the bound, 503 while the server
   * stops). `ended` runs once, when the stream ends for whatever reason (the task finished, the
   * client left, the server stops); the returned function ends it from the route's side.
   */
  admit(accountId: string, stream: EventStream, ended: () => void): () => void {
    if (this.closing)
      throw new ApiError(503, 'server_error', 'service_unavailable', 'This server is shutting down; connect again.');
    const count = this.perAccount.get(accountId) ?? 0;
    if (count >= this.options.maxPerAccount) {
      throw new TooManyRequests(
        'too_many_streams',
        `This account already has ${count} task streams open on this server, its limit; long-poll the task ` +
          'instead (`?wait=`), or close a stream.',
        RETRY_AFTER_SECONDS,
      );
    }
    this.perAccount.set(accountId, count + 1);
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      this.streams.delete(stream);
      const left = (this.perAccount.get(accountId) ?? 1) - 1;
      if (left > 0) this.perAccount.set(accountId, left);
      else this.perAccount.delete(accountId);
      if (this.streams.size === 0) this.stopHeartbeat();
      stream.end();
      ended();
    };
    this.streams.set(stream, { finish, endsAt: this.options.clock() + this.options.maxLifetimeMs });
    stream.body.once('close', finish);
    this.timer ??= setInterval(() => this.beat(), this.options.heartbeatMs).unref();
    return finish;
  }

  /** Ends every stream (their clients reconnect elsewhere with `Last-Event-ID`) and admits no more. */
  closeAll(): void {
    this.closing = true;
    for (const { finish } of [...this.streams.values()]) finish();
  }

  private beat(): void {
    const now = this.options.clock();
    for (const [stream, { finish, endsAt }] of [...this.streams]) {
      if (now >= endsAt) finish();
      else stream.ping();
    }
  }

  private stopHeartbeat(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
