import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void | Promise<void>;

/**
 * A loopback HTTP server that answers each request with the next scripted handler (the last
 * one repeats). It stands in for the parts of the world the SDK must survive: servers that cut
 * transfers short, send the wrong type, stall, or lack a feature.
 */
export async function startScriptedServer(
  ...handlers: Handler[]
): Promise<{ url: string; seen: SeenRequest[]; script(...next: Handler[]): void; close(): Promise<void> }> {
  let queue = [...handlers];
  const seen: SeenRequest[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
    const handler = queue.length > 1 ? queue.shift()! : queue[0];
    await handler(req, res, body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    script: (...next) => {
      queue = [...next];
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req_test123', ...headers });
    res.end(JSON.stringify(body));
  };
}

/** Bytes that look like an MP4 to the checks: a 24-byte `ftyp` box, then filler. */
export function fakeMp4(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + 7) % 251;
  bytes.writeUInt32BE(24, 0);
  bytes.write('ftypisom', 4, 'latin1');
  return bytes;
}

/** Serves `bytes` as video/mp4 with ETag, honouring `Range` + `If-Range` like the vidgen content endpoint. */
export function mp4(
  bytes: Buffer,
  opts: { etag?: string; contentType?: string; cutAfter?: number; cleanCut?: boolean; cutWhen?: Promise<unknown> } = {},
): Handler {
  return (req, res) => {
    const etag = opts.etag ?? '"v1"';
    const range = /^bytes=(\d+)-$/.exec(String(req.headers.range ?? ''));
    const ifRange = req.headers['if-range'];
    const partial = range && (!ifRange || ifRange === etag);
    const start = partial ? Number(range[1]) : 0;
    const headers: Record<string, string> = {
      'content-type': opts.contentType ?? 'video/mp4',
      etag,
      'accept-ranges': 'bytes',
      'content-length': String(bytes.length - start),
    };
    if (partial) headers['content-range'] = `bytes ${start}-${bytes.length - 1}/${bytes.length}`;
    res.writeHead(partial ? 206 : 200, headers);
    const body = bytes.subarray(start);
    if (opts.cutAfter === undefined) return void res.end(body);
    // Let the bytes reach the client before the connection ends: a clean FIN after too few bytes, or a torn connection.
    // `cutWhen`: only once the client says it has them. A torn stream drops chunks the client has not read yet,
    // so a fixed delay lost the race on a busy machine and the "resumed" transfer started from 0.
    const cut = () => (opts.cleanCut ? res.socket?.end() : res.socket?.destroy());
    res.write(body.subarray(0, opts.cutAfter), () =>
      opts.cutWhen ? void opts.cutWhen.then(cut) : setTimeout(cut, 50),
    );
  };
}
