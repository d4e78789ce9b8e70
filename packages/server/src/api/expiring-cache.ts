export interface Remembered<V> {
  readonly value: V;
  readonly until: number;
}

/**
 * Values remembered for a fixed time after they were read, at most `max` of them (all are
 * forgotten when it is full: simpler than LRU, and a full cache only costs the reads it saved).
 */
export class ExpiringCache<V> {
  private readonly entries = new Map<string, Remembered<V>>();

  constructor(
    private readonly ttlMs: number,
    private readonly max: number,
  ) {}

  get(key: string, now: number): V | undefined {
    return this.entry(key, now)?.value;
  }

  /** The value with the time it is trusted until. */
  entry(key: string, now: number): Remembered<V> | undefined {
    const entry = this.entries.get(key);
    return entry && entry.until > now ? entry : undefined;
  }

  set(key: string, value: V, now: number): Remembered<V> {
    if (this.entries.size >= this.max) this.entries.clear();
    const entry = { value, until: now + this.ttlMs };
    this.entries.set(key, entry);
    return entry;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}
