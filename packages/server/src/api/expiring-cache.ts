/**
 * Values remembered for a fixed time after they were read, at most `max` of them (all are
 * forgotten when it is full: simpler than LRU, and a full cache only costs the reads it saved).
 */
export class ExpiringCache<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly max: number,
  ) {}

  get(key: string, now: number): V | undefined {
    const entry = this.entries.get(key);
    return entry && entry.until > now ? entry.value : undefined;
  }

  set(key: string, value: V, now: number): void {
    if (this.entries.size >= this.max) this.entries.clear();
    this.entries.set(key, { value, until: now + this.ttlMs });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}
