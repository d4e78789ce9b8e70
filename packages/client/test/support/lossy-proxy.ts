import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  /** The answer was torn off before it reached the client. */
  dropped: boolean;
}

/**
 * A loopback proxy in front of a real server that can lose answers: the request reaches the
 * server and is fully processed, but the client's connection is torn down instead of getting the
 * response — the "submit timed out, did it land?" case of docs/service-spec.md §1 obligation 2.
 */
export async function startLossyProxy(target: string): Promise<{
  url: string;
  seen: ProxiedRequest[];
  /** Decides per request whether its answer is lost. */
  dropWhen(rule: (req: ProxiedRequest, index: number) => boolean): void;
  close(): Promise<void>;
}> {
  const seen: ProxiedRequest[] = [];
  let rule: (req: ProxiedRequest, index: number) => boolean = () => false;
  const upstream = new URL(target);
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const entry: ProxiedRequest = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      dropped: false,
    };
    entry.dropped = rule(entry, seen.length);
    seen.push(entry);
    const out = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        const body: Buffer[] = [];
        answer.on('data', (c: Buffer) => body.push(c));
        answer.on('end', () => {
          if (entry.dropped) return void res.socket?.destroy();
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(Buffer.concat(body));
        });
      },
    );
    out.on('error', () => res.socket?.destroy());
    out.end(Buffer.concat(chunks));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    dropWhen: (next) => {
      rule = next;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
