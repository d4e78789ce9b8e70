import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  /** The status this receiver answered with (undefined: it never answered). */
  answered?: number;
}

/**
 * A webhook receiver on loopback that records every request. `answer` decides each status (it
 * may wait: a held request is how a test kills the sender mid-delivery).
 */
export async function startWebhookReceiver(
  answer: (request: Received, index: number) => number | Promise<number> = () => 200,
) {
  const received: Received[] = [];
  const waiters = new Set<() => void>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const entry: Received = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(entry);
      for (const wake of waiters) wake();
      const status = await answer(entry, received.length - 1);
      if (res.destroyed) return;
      entry.answered = status;
      res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    /** Resolves once `done(received)` holds; fails after `timeoutMs`. */
    until(done: (all: Received[]) => boolean, timeoutMs = 120_000): Promise<void> {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!done(received)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(
          () => (waiters.delete(check), reject(new Error(`receiver: timed out with ${received.length} requests`))),
          timeoutMs,
        );
        waiters.add(check);
        check();
      });
    },
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}
