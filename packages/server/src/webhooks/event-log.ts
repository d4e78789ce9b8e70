/** An event of an account as it happened: `body` is what every delivery of it sends, byte for byte. */
export interface StoredEvent {
  id: string;
  accountId: string;
  type: string;
  taskId: string | null;
  createdAt: number;
  body: string;
  /** The trace the event happened in (observability/tracing, storedTraceContext); its deliveries continue it. */
  traceContext?: string | null;
}

export interface EventQuery {
  limit: number;
  /** An event id: the page holds older events than it (listings run newest first). */
  after?: string;
  type?: string;
  /** Epoch ms: only events made at or after it. */
  since?: number;
}

/** What `recover` may send again to one endpoint. */
export interface Recovery {
  endpointId: string;
  accountId: string;
  /** The event types the endpoint subscribes to. */
  types: readonly string[];
  /** Epoch ms, inclusive. */
  since: number;
  /** Epoch ms, exclusive; undefined: up to now. */
  until?: number;
  maxAttempts: number;
  now: number;
}

/**
 * The account's events with their frozen bodies (written by webhook-outbox.ts in the transaction of
 * the change they report). Kept for a retention period: listed, sent by deliveries, recovered.
 */
export interface EventLog {
  /** Writes an event made outside a task's change (`webhook.test`). */
  append(event: StoredEvent): Promise<void>;
  /** The account's events, newest first. */
  list(accountId: string, query: EventQuery): Promise<StoredEvent[]>;
  /** The frozen body of an event; undefined once the retention sweep removed it. */
  body(eventId: string): Promise<string | undefined>;
  /** The trace the event happened in; undefined when none was kept (tracing was off) or the event is gone. */
  traceContext(eventId: string): Promise<string | undefined>;
  /**
   * Queues, for one endpoint, every event of the range it has not received and is not about to
   * (no delivery, or one that failed or was canceled): each once, whatever runs at the same time.
   * Returns how many it queued.
   */
  recover(recovery: Recovery): Promise<number>;
  /** Removes up to `limit` events made before `before`; returns how many. */
  sweep(before: number, limit: number): Promise<number>;
}
