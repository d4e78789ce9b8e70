import { APIUserAbortError } from '../errors.ts';

export { parseRetryAfter } from '@vidgen/protocol/retry-after';

export interface BackoffOptions {
  /** Delay before the first retry, before jitter. */
  initialDelayMs: number;
  maxDelayMs: number;
  /** Share of the delay that is randomised away (0.25 → 75–100 %), so many clients do not retry in step. */
  jitter: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialDelayMs: 500, maxDelayMs: 8_000, jitter: 0.25 };

/**
 * Delay before retry number `retry` (1-based). A server's Retry-After wins over the curve: it
 * knows when it will have room again.
 */
export function backoffDelay(
  retry: number,
  options: BackoffOptions = DEFAULT_BACKOFF,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined && retryAfterMs >= 0) return retryAfterMs;
  const exponential = Math.min(options.maxDelayMs, options.initialDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.round(exponential * (1 - options.jitter * random()));
}

/** Resolves after `ms`, or rejects with APIUserAbortError as soon as `signal` fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new APIUserAbortError(undefined, { cause: signal.reason }));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new APIUserAbortError(undefined, { cause: signal?.reason }));
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
