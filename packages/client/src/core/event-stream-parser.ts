/** One event of a `text/event-stream`, as the HTML standard's parser dispatches it. */
export interface ServerSentEvent {
  /** The stream's last event id when this event was dispatched (what a reconnect sends as `Last-Event-ID`). */
  id: string | undefined;
  /** `event:`, or `message` when the server named none. */
  event: string;
  /** The `data:` lines joined by line feeds. */
  data: string;
}

/**
 * The Server-Sent Events parser of the HTML standard ("Interpreting an event stream"), fed with
 * text as it arrives: lines end with CRLF, LF or CR (a CR at the end of one chunk and an LF at the
 * start of the next are one line end), comment lines are skipped, an event is dispatched at an
 * empty line when it carries data. `retry:` is reported to `onRetry`, comment lines (a server's
 * heartbeat) to `onComment`.
 */
export class EventStreamParser {
  private buffer = '';
  /** The previous chunk ended in a CR: an LF opening this one ends no further line. */
  private afterCr = false;
  private data: string[] = [];
  private eventType = '';
  private lastEventId: string | undefined;
  private readonly onRetry: (ms: number) => void;
  private readonly onComment: (text: string) => void;

  constructor(
    options: { onRetry?: (ms: number) => void; onComment?: (text: string) => void; lastEventId?: string } = {},
  ) {
    this.onRetry = options.onRetry ?? (() => undefined);
    this.onComment = options.onComment ?? (() => undefined);
    this.lastEventId = options.lastEventId;
  }

  /** The events the text completes. */
  push(text: string): ServerSentEvent[] {
    let chunk = text;
    if (this.afterCr && chunk.startsWith('\n')) chunk = chunk.slice(1);
    this.afterCr = chunk.endsWith('\r');
    this.buffer += chunk;
    const events: ServerSentEvent[] = [];
    for (;;) {
      const end = this.buffer.search(/[\r\n]/);
      if (end < 0) break;
      const line = this.buffer.slice(0, end);
      const crlf = this.buffer[end] === '\r' && this.buffer[end + 1] === '\n';
      this.buffer = this.buffer.slice(end + (crlf ? 2 : 1));
      const event = this.line(line);
      if (event) events.push(event);
    }
    return events;
  }

  private line(line: string): ServerSentEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return void this.onComment(line.slice(1));
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.eventType = value;
    else if (field === 'id' && !value.includes('\u0000')) this.lastEventId = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.onRetry(Number(value));
    return undefined;
  }

  private dispatch(): ServerSentEvent | undefined {
    const data = this.data;
    const event = this.eventType || 'message';
    this.data = [];
    this.eventType = '';
    if (data.length === 0) return undefined;
    return { id: this.lastEventId, event, data: data.join('\n') };
  }
}
