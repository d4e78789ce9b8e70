/**
 * The ComfyUI websocket (`/ws?clientId=…`), used for progress and as a hint that a prompt ended.
 * It is never the source of truth: ComfyUI drops messages for clients that reconnect, sends binary
 * preview frames in between, and a socket can stall without closing, so the status endpoint decides.
 */
import WebSocket from 'ws';

/** One JSON message: `{type, data}`, e.g. progress `{value, max, prompt_id, node}`. */
export interface SocketMessage {
  type: string;
  data: Record<string, unknown>;
}

export class ComfyUiSocket {
  private listeners: Array<(m: SocketMessage) => void> = [];
  private closedListeners: Array<() => void> = [];
  private open = true;

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (raw, isBinary) => {
      if (isBinary) return; // preview images
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw.toString());
      } catch {
        return;
      }
      const m = parsed as Partial<SocketMessage>;
      if (typeof m?.type !== 'string') return;
      const message = { type: m.type, data: m.data && typeof m.data === 'object' ? m.data : {} };
      for (const fn of this.listeners) fn(message);
    });
    ws.on('close', () => this.markClosed());
    ws.on('error', () => this.markClosed());
  }

  /**
   * Connects and waits for ComfyUI's greeting (a `status` message with our sid): only after it is
   * our client registered, so a prompt queued before that could send its first messages to nobody.
   * Resolves undefined when the host cannot be reached this way; the caller then polls.
   */
  static connect(
    url: string,
    headers: Record<string, string>,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<ComfyUiSocket | undefined> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve(undefined);
      const ws = new WebSocket(url, { headers, handshakeTimeout: timeoutMs, maxPayload: 64 * 1024 * 1024 });
      const socket = new ComfyUiSocket(ws);
      let settled = false;
      const finish = (ok: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        if (!ok) socket.close();
        resolve(ok ? socket : undefined);
      };
      const onAbort = () => finish(false);
      const timer = setTimeout(() => finish(false), timeoutMs);
      signal.addEventListener('abort', onAbort, { once: true });
      socket.onMessage((m) => m.type === 'status' && finish(true));
      socket.onClosed(() => finish(false));
    });
  }

  get alive(): boolean {
    return this.open;
  }

  onMessage(fn: (m: SocketMessage) => void): void {
    this.listeners.push(fn);
  }

  onClosed(fn: () => void): void {
    if (!this.open) fn();
    else this.closedListeners.push(fn);
  }

  close(): void {
    this.markClosed();
    this.listeners = [];
    // terminate, not close: a stalled peer would keep a polite close handshake (and our handle) open.
    if (this.ws.readyState !== WebSocket.CLOSED) this.ws.terminate();
  }

  private markClosed(): void {
    if (!this.open) return;
    this.open = false;
    const fns = this.closedListeners;
    this.closedListeners = [];
    for (const fn of fns) fn();
  }
}
