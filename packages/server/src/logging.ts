import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * JSON logs, on stdout unless a destination is given (a test's). Requests are logged by method
 * and path only: query strings can carry signed-link secrets, and headers carry API keys. With
 * `traceIds`, every line written inside a trace carries its `trace_id` and `span_id`.
 */
export function createLogger(
  level: string,
  destination?: DestinationStream,
  traceIds?: () => Record<string, string> | undefined,
): Logger {
  return pino(
    {
      level,
      // A fresh object each line: pino merges the line's own fields into it.
      ...(traceIds ? { mixin: () => ({ ...traceIds() }) } : {}),
      serializers: {
        req: (req: { id: string; method: string; url: string }) => ({
          id: req.id,
          method: req.method,
          path: req.url.split('?')[0],
        }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
        err: pino.stdSerializers.err,
      },
    },
    destination ?? (level === 'silent' ? undefined : stdoutBuffered()),
  );
}

/**
 * The same logger (its level and destination), whose lines carry the active span's ids
 * (docs/observability.md). Made only with tracing on: off, no line pays for the lookup.
 */
export function withTraceIds(logger: Logger, traceIds: () => Record<string, string> | undefined): Logger {
  const destination = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] as DestinationStream;
  return createLogger(logger.level, destination, traceIds);
}

/** Lines are held at most this long before they are written… */
const FLUSH_AFTER_MS = 100;
/** …or until this many bytes are held. */
const BATCH_BYTES = 64 * 1024;
/** Bytes waiting for a reader that does not keep up, beyond which new lines are dropped. */
const MAX_PENDING_BYTES = 16 * 1024 * 1024;

let shared: DestinationStream | undefined;

/**
 * Stdout, written in batches, as nginx's `access_log … buffer= flush=` does: the lines of up to
 * 100 ms (or 64 KiB) go out in one write. One write per line cost a poll ~11 µs of CPU (the
 * write, and waking the process that reads the pipe): a quarter of a `/healthz` answer
 * (docs/performance.md).
 *
 * Each line is copied into the batch's bytes at once, so the string dies young: strings held
 * until the flush outlived the young generation and were copied by every scavenge on the way.
 *
 * The writes are asynchronous. pino's synchronous default, on a pipe that Node has made
 * non-blocking, answers a full pipe by sleeping 100 ms with the whole event loop (sonic-boom's
 * busy-write wait): a log reader that fell behind froze every request. Now batches wait in
 * memory instead, up to MAX_PENDING_BYTES, past which new ones are dropped rather than the
 * server stalled. What is held is written when the process exits, however it exits short of a
 * kill -9, which can lose the last 100 ms of lines.
 */
function stdoutBuffered(): DestinationStream {
  if (shared) return shared;
  const out = pino.destination({ dest: 1, sync: false, maxLength: MAX_PENDING_BYTES, contentMode: 'buffer' });
  // In `buffer` mode sonic-boom writes bytes; its types know only its default, text.
  const writeBytes = (bytes: Buffer) => out.write(bytes as unknown as string);
  let batch = Buffer.allocUnsafe(BATCH_BYTES);
  let used = 0;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (used === 0) return;
    // sonic-boom keeps the bytes until they are written: the next batch gets new ones.
    writeBytes(batch.subarray(0, used));
    batch = Buffer.allocUnsafe(BATCH_BYTES);
    used = 0;
  };
  process.on('exit', () => {
    flush();
    out.flushSync();
  });
  shared = {
    write(line: string) {
      // A UTF-16 unit is at most 3 bytes of UTF-8: if the line might not fit, flush first.
      if (used + line.length * 3 > BATCH_BYTES) {
        flush();
        if (line.length * 3 > BATCH_BYTES) return void writeBytes(Buffer.from(line));
      }
      used += batch.write(line, used);
      timer ??= setTimeout(flush, FLUSH_AFTER_MS).unref();
    },
  };
  return shared;
}
