/**
 * The stdio side of `vidgen mcp`: JSON-RPC messages read one per line (the MCP stdio transport's
 * framing) are each POSTed to a vidgen server's `/mcp` (its Streamable HTTP transport), and what
 * the server answers, as JSON or as a Server-Sent Event stream, is written back one message per
 * line. No MCP library: the client SDK keeps its zero runtime dependencies, and the bridge needs
 * nothing of the protocol beyond its framing (docs/mcp.md).
 */

export interface McpBridgeOptions {
  /** `<base URL>/mcp`. */
  endpoint: string;
  apiKey: string;
  /** One JSON-RPC message, serialized on one line, to the agent. */
  send(line: string): void;
  /** A line for a person (stderr): what went wrong with a message that has no id to answer. */
  note(line: string): void;
  fetch?: typeof fetch;
}

type Id = string | number | null;
/** What the bridge reads of a message: whether it is a request (and its id), a cancel, an initialize's answer. */
type Message = {
  id?: Id;
  method?: string;
  params?: { requestId?: string | number };
  result?: { protocolVersion?: unknown };
};

/** The JSON-RPC error codes the bridge answers with itself. */
const PARSE_ERROR = -32700;
const SERVER_ERROR = -32000;

export class McpBridge {
  private readonly inFlight = new Map<string | number, AbortController>();
  private readonly pending = new Set<Promise<void>>();
  /** Negotiated at `initialize`; sent on every later request, as the transport asks. */
  private protocolVersion: string | undefined;
  private initializeId: string | number | undefined;

  constructor(private readonly options: McpBridgeOptions) {}

  /** Forwards one line from the agent; its answer is written when it comes, messages overlapping. */
  forward(line: string): void {
    if (line.trim() === '') return;
    let message: Message;
    try {
      message = JSON.parse(line);
    } catch {
      return this.reply(null, PARSE_ERROR, 'Parse error: the line is not JSON.');
    }
    const id = message.method !== undefined ? message.id : undefined;
    // The server is stateless: a cancel can only end the HTTP request that carries the call.
    if (message.method === 'notifications/cancelled') {
      const requestId = message.params?.requestId;
      if (requestId !== undefined) this.inFlight.get(requestId)?.abort();
      return;
    }
    if (message.method === 'initialize' && id != null) this.initializeId = id;
    const controller = new AbortController();
    if (id != null) this.inFlight.set(id, controller);
    const done = this.post(line, id, controller.signal)
      .catch((err: Error) => {
        if (controller.signal.aborted) return;
        this.failed(id, `cannot reach ${this.options.endpoint}: ${err.message}`);
      })
      .finally(() => {
        if (id != null) this.inFlight.delete(id);
        this.pending.delete(done);
      });
    this.pending.add(done);
  }

  /** Stops every request still under way (the agent went away) and waits until they have. */
  async close(): Promise<void> {
    for (const controller of this.inFlight.values()) controller.abort();
    await Promise.all([...this.pending]);
  }

  private async post(body: string, id: Id | undefined, signal: AbortSignal): Promise<void> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.options.apiKey}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    if (this.protocolVersion) headers['mcp-protocol-version'] = this.protocolVersion;
    const res = await (this.options.fetch ?? fetch)(this.options.endpoint, { method: 'POST', headers, body, signal });
    if (res.status === 202 || res.status === 204) return;
    const type = res.headers.get('content-type') ?? '';
    if (!res.ok) return this.failed(id, `vidgen answered HTTP ${res.status}: ${messageOf(await res.text())}`);
    if (type.startsWith('text/event-stream')) return this.relayEvents(res);
    const answer = JSON.parse(await res.text()) as Message | Message[];
    for (const message of Array.isArray(answer) ? answer : [answer]) this.deliver(message);
  }

  /** Each event's data is one message (the transport sends nothing else on a request's stream). */
  private async relayEvents(res: Response): Promise<void> {
    if (!res.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true }).replaceAll('\r\n', '\n');
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        this.event(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf('\n\n');
      }
    }
  }

  private event(block: string): void {
    const data = block
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''))
      .join('\n');
    // Comments (keep-alives) and priming events carry no message.
    if (data.trim() !== '') this.deliver(JSON.parse(data));
  }

  private deliver(message: Message): void {
    const version = message.result?.protocolVersion;
    if (message.id != null && message.id === this.initializeId && typeof version === 'string') {
      this.protocolVersion = version;
    }
    this.options.send(JSON.stringify(message));
  }

  /** A request gets an error answer; a notification's failure can only be told to a person. */
  private failed(id: Id | undefined, message: string): void {
    if (id != null) this.reply(id, SERVER_ERROR, message);
    else this.options.note(`vidgen mcp: ${message}`);
  }

  private reply(id: Id | undefined, code: number, message: string): void {
    this.options.send(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }));
  }
}

/** The server's own words: an API error's message, a JSON-RPC error's, or the text itself. */
function messageOf(text: string): string {
  try {
    const body = JSON.parse(text);
    return body?.error?.message ?? text;
  } catch {
    return text.slice(0, 500);
  }
}
