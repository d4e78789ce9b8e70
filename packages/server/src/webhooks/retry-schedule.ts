/** The delays between delivery attempts (pure, so tests and docs share it). */
export interface RetrySchedule {
  /** Delay after the first failed attempt; each later one doubles, up to `capMs`. */
  baseMs: number;
  capMs: number;
  /** Attempts in all, the first one included. */
  maxAttempts: number;
}

/**
 * 10 s doubling to 6 h, 15 attempts: about 23 h in all, the "about a day" receivers expect
 * (Standard Webhooks' own schedule spans a similar time).
 */
export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = { baseMs: 10_000, capMs: 6 * 3600_000, maxAttempts: 15 };

/**
 * The wait after `attempts` failed attempts. ±25 % jitter keeps endpoints that failed together
 * (an outage) from being retried in lockstep.
 */
export function retryDelayMs(attempts: number, schedule: RetrySchedule, random: () => number = Math.random): number {
  const exponential = Math.min(schedule.baseMs * 2 ** Math.max(0, attempts - 1), schedule.capMs);
  return Math.round(exponential * (0.75 + 0.5 * random()));
}
