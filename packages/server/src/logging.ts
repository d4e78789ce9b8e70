import pino, { type Logger } from 'pino';

/**
 * JSON logs on stdout. Requests are logged by method and path only: query strings can carry
 * signed-link secrets, and headers carry API keys.
 */
export function createLogger(level: string): Logger {
  return pino({
    level,
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, path: req.url.split('?')[0] }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      err: pino.stdSerializers.err,
    },
  });
}
