/**
 * A small HTTP proxy in front of a real upstream that injects the faults a relay must survive:
 * answers replaced (429, 5xx, 410), answers lost after the upstream acted (a dropped submit),
 * connections cut before forwarding, and JSON answers rewritten (unknown or expired states).
 * It speaks plain HTTP/1.1 and forwards everything else unchanged.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type FaultAction =
  /** Answer this without forwarding: the upstream never sees the request. */
  | { kind: 'answer'; status: number; body?: unknown; headers?: Record<string, string> }
  /** Forward (the upstream acts), then answer this instead of the upstream's answer. */
  | { kind: 'forward-then-answer'; status: number; body?: unknown; headers?: Record<string, string> }
  /** Forward (the upstream acts), then cut the connection without answering. */
  | { kind: 'forward-then-drop' }
  /** Cut the connection without forwarding. */
  | { kind: 'drop' }
  /** Forward, then rewrite the upstream's JSON answer. */
  | { kind: 'rewrite'; body: (json: any) => unknown; status?: number };

export interface FaultRule {
  method?: string;
  path: RegExp;
  /** How many matching requests get the fault; every one by default. */
  times?: number;
  action: FaultAction;
}

export interface SeenRequest {
  method: string;
  path: string;
  fault?: FaultAction['kind'];
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'upgrade',
  'proxy-connection',
]);

export class RelayFaultProxy {
  readonly requests: SeenRequest[] = [];
  private rules: Array<FaultRule & { left: number }> = [];

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
    private readonly target: URL,
    private readonly rewriteHost: boolean,
  ) {}

  /**
   * `rewriteHost` sends the upstream its own Host, so links it builds point at it directly (another
   * origin than the proxy); by default the proxy's Host is kept, as a reverse proxy would.
   */
  static async start(target: string, options: { rewriteHost?: boolean } = {}): Promise<RelayFaultProxy> {
    let proxy: RelayFaultProxy | undefined;
    const server = http.createServer((req, res) => void proxy!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    proxy = new RelayFaultProxy(server, `http://127.0.0.1:${port}`, new URL(target), options.rewriteHost ?? false);
    return proxy;
  }

  fault(rule: FaultRule): void {
    this.rules.push({ ...rule, left: rule.times ?? Infinity });
  }

  clearFaults(): void {
    this.rules = [];
  }

  /** Requests seen with this method whose path (without the query) matches. */
  seen(method: string, path: RegExp): SeenRequest[] {
    return this.requests.filter((r) => r.method === method && path.test(r.path.split('?')[0]));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const body = await readAll(req);
    const path = req.url ?? '/';
    const rule = this.rules.find(
      (r) => r.left > 0 && (!r.method || r.method === req.method) && r.path.test(path.split('?')[0]),
    );
    if (rule) rule.left--;
    const action = rule?.action;
    this.requests.push({ method: req.method ?? 'GET', path, fault: action?.kind });
    try {
      if (action?.kind === 'drop') return void req.socket.destroy();
      if (action?.kind === 'answer') return send(res, action.status, action.body, action.headers);
      const upstream = await this.forward(req, path, body);
      if (action?.kind === 'forward-then-drop') return void req.socket.destroy();
      if (action?.kind === 'forward-then-answer') return send(res, action.status, action.body, action.headers);
      if (action?.kind === 'rewrite') {
        const json = JSON.parse(upstream.body.toString('utf8') || 'null');
        return send(
          res,
          action.status ?? upstream.status,
          action.body(json),
          passHeaders(upstream.headers, ['content-type']),
        );
      }
      res.writeHead(upstream.status, passHeaders(upstream.headers));
      res.end(upstream.body);
    } catch {
      req.socket.destroy();
    }
  }

  private forward(
    req: http.IncomingMessage,
    path: string,
    body: Buffer,
  ): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
    const headers = passHeaders(req.headers);
    if (this.rewriteHost) headers.host = this.target.host;
    if (body.length > 0) headers['content-length'] = String(body.length);
    return new Promise((resolve, reject) => {
      const out = http.request(
        { host: this.target.hostname, port: this.target.port, method: req.method, path, headers },
        (answer) => {
          readAll(answer).then(
            (b) => resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: b }),
            reject,
          );
        },
      );
      out.on('error', reject);
      out.end(body);
    });
  }
}

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { ...(text ? { 'content-type': 'application/json' } : {}), ...headers });
  res.end(text);
}

function passHeaders(headers: http.IncomingHttpHeaders, drop: string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined || HOP_BY_HOP.has(k) || drop.includes(k)) continue;
    out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}
