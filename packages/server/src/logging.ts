import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * JSON logs, on stdout unless a destination is given (a test's). Requests are logged by method
 * and path only: query strings can carry signed-link secrets, and headers carry API keys.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      serializers: {
        req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, path: req.url.split('?')[0] }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
        err: pino.stdSerializers.err,
      },
    },
    destination ?? (level === 'silent' ? undefined : stdoutByTurn()),
  );
}

let shared: DestinationStream | undefined;

/**
 * Stdout, written once per turn of the event loop: the lines logged while answering a burst of
 * requests go out in one write. One write per line cost a poll ~11 µs of CPU (the write, and
 * waking the process that reads the pipe), a third of what `/healthz` costs in all
 * (docs/performance.md). The write is still synchronous, as pino's default is: a reader that
 * stops reading slows the server rather than filling its memory. What is held is written when
 * the process exits; only a kill -9 can lose it, and it is at most one turn's lines.
 */
function stdoutByTurn(): DestinationStream {
  if (shared) return shared;
  const out = pino.destination({ dest: 1, sync: true });
  let held: string[] = [];
  const flush = () => {
    if (held.length === 0) return;
    const text = held.join('');
    held = [];
    out.write(text);
  };
  process.on('exit', flush);
  shared = {
    write(line: string) {
      if (held.push(line) === 1) setImmediate(flush);
    },
  };
  return shared;
}
