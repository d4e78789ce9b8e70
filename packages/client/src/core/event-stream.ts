import { APIConnectionError, APIError, APIUserAbortError, VidgenError } from '../errors.ts';
import { backoffDelay, parseRetryAfter, sleep } from './backoff.ts';
import { EventStreamParser, type ServerSentEvent } from './event-stream-parser.ts';
import { isRetryable, type Transport } from './transport.ts';

export type { ServerSentEvent };

export interface EventStreamOptions {
  /** Start after this event (sent as `Last-Event-ID`): only what came later is received. */
  lastEventId?: string;
  signal?: AbortSignal;
  /**
   * Reconnections in a row that may fail (no connection, 5xx) before the stream gives up with
   * the last error; any event received starts the count again. Default 10.
   */
  maxReconnects?: number;
  /**
   * With no byte (event or heartbeat) for this long the connection is taken for dead and made
   * again. Default: the client's `timeout` (a vidgen server sends a heartbeat every 15 s).
   */
  idleTimeoutMs?: number;
}

/** How a stream is read: which event is its last, so it is not connected again after it. */
export interface EventStreamRead extends EventStreamOptions {
  path: string;
  isLast(event: ServerSentEvent): boolean;
}

/** The server has no such stream (an older vidgen, another service): poll instead. */
export class StreamNotOfferedError extends VidgenError {}

/** Until the server says otherwise with `retry:`, the pause before reconnecting. */
const DEFAULT_RETRY_MS = 2000;
const DEFAULT_MAX_RECONNECTS = 10;

/**
 * The events of a `text/event-stream` route, as fetch and a ReadableStream read them (Node 20,
 * browsers; no EventSource, which cannot send the API key). A connection that breaks, goes idle
 * or ends before the last event is made again after the server's `retry:` pause, with
 * `Last-Event-ID` (docs/streams.md); refusals are thrown as the poll's would be, except that a
 * server without the route throws StreamNotOfferedError.
 */
export async function* readEventStream(transport: Transport, read: EventStreamRead): AsyncGenerator<ServerSentEvent> {
  let lastEventId = read.lastEventId;
  let retryMs = DEFAULT_RETRY_MS;
  let failures = 0;
  const maxReconnects = read.maxReconnects ?? DEFAULT_MAX_RECONNECTS;
  for (;;) {
    // An event or a heartbeat: the connection was a working stream, not one that ends at once.
    let received = false;
    try {
      const parser = new EventStreamParser({
        onRetry: (ms) => (retryMs = ms),
        onComment: () => (received = true),
        lastEventId,
      });
      for await (const event of connection(transport, read, lastEventId, parser)) {
        received = true;
        failures = 0;
        lastEventId = event.id;
        yield event;
        if (read.isLast(event)) return;
      }
      // Ended cleanly before the last event (a stream's time is up, the server stops, or it let a slow
      // reader go): connect again. One that brought nothing counts as a failure, so a server that only
      // does that is not asked forever.
      if (received) failures = 0;
      else failures++;
    } catch (err) {
      if (err instanceof StreamEnded) return;
      // A refusal for now (too many streams) is the caller's to weigh: polling serves meanwhile.
      if (!isRetryable(err) || (err instanceof APIError && err.status === 429)) throw err;
      if (++failures > maxReconnects) throw err;
      const hint = err instanceof APIError ? parseRetryAfter(err.headers) : undefined;
      await sleep(
        hint ?? backoffDelay(failures, transport.options.backoff, failures === 1 ? retryMs : undefined),
        read.signal,
      );
      continue;
    }
    if (failures > maxReconnects) throw new APIConnectionError('The event stream keeps ending without events.');
    await sleep(retryMs, read.signal);
  }
}

/** The server answered 204: the stream's last event was seen already, nothing more will come. */
class StreamEnded extends Error {}

/** One connection's events; ends when the server ends the answer, throws when it breaks or goes idle. */
async function* connection(
  transport: Transport,
  read: EventStreamRead,
  lastEventId: string | undefined,
  parser: EventStreamParser,
): AsyncGenerator<ServerSentEvent> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(read.signal?.reason);
  if (read.signal?.aborted) onAbort();
  read.signal?.addEventListener('abort', onAbort, { once: true });
  const idleMs = read.idleTimeoutMs ?? transport.options.timeout;
  let idle: ReturnType<typeof setTimeout> | undefined;
  let wentIdle = false;
  const watchIdle = () => {
    clearTimeout(idle);
    idle = setTimeout(() => {
      wentIdle = true;
      controller.abort();
    }, idleMs);
  };
  try {
    let response: Response;
    try {
      ({ response } = await transport.send({
        method: 'GET',
        path: read.path,
        headers: {
          accept: 'text/event-stream',
          'cache-control': 'no-cache',
          ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }),
        },
        raw: true,
        signal: controller.signal,
      }));
    } catch (err) {
      throw notOffered(err) ?? err;
    }
    if (response.status === 204) throw new StreamEnded();
    const type = response.headers.get('content-type') ?? '';
    if (!type.toLowerCase().startsWith('text/event-stream') || !response.body) {
      await response.body?.cancel().catch(() => undefined);
      throw new StreamNotOfferedError(`${read.path} did not answer with an event stream (${type || 'no type'}).`);
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        watchIdle();
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (err) {
          if (read.signal?.aborted) throw new APIUserAbortError(undefined, { cause: err });
          const why = wentIdle ? `no byte for ${idleMs} ms` : 'the connection broke';
          throw new APIConnectionError(`The event stream ended unexpectedly: ${why}.`, { cause: err });
        }
        // An event cut off by the end is dropped, as the standard says: it is sent again after the reconnect.
        if (chunk.done) return;
        yield* parser.push(decoder.decode(chunk.value, { stream: true }));
      }
    } finally {
      reader.releaseLock();
      await response.body.cancel().catch(() => undefined);
    }
  } finally {
    clearTimeout(idle);
    read.signal?.removeEventListener('abort', onAbort);
    controller.abort();
  }
}

/** A refusal that says the route does not exist here (rather than that the task does not). */
function notOffered(err: unknown): StreamNotOfferedError | undefined {
  if (!(err instanceof APIError) || err.status === undefined) return undefined;
  const missingRoute = err.status === 404 && err.code !== 'task_not_found';
  if (!missingRoute && ![405, 406, 501].includes(err.status)) return undefined;
  return new StreamNotOfferedError(`The server offers no event stream here (${err.message}).`, { cause: err });
}
