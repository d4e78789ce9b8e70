/**
 * Exponential backoff with jitter for transient failures: attempt 1 waits about `baseMs`,
 * each later one twice as long, never more than `capMs`. Jitter (50–100 %) spreads retries
 * of many tasks that failed together, e.g. when a backend host restarted.
 */
export function retryDelayMs(attempt: number, baseMs = 2000, capMs = 60_000, random = Math.random): number {
  const exponential = Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential * (0.5 + random() / 2));
}
