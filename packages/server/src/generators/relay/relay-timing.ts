/** The relay's clocks: waits, backoff and the pacing of polls. Tests shorten them; production keeps the defaults. */

export interface RelayTimings {
  /** Pause after a held long-poll answer: the upstream answers on change, so asking again soon is right. */
  longPollGapMs: number;
  /** First retry delay after an error; doubles up to `backoffMaxMs`. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** Wait before looking an ambiguous submit up, so a create still in flight upstream has landed. */
  reconcileSettleMs: number;
  /** Pause before re-sending a create the upstream reports as still being processed (409). */
  inFlightRetryMs: number;
  /** How long a cancel may take to reach the upstream once an attempt is aborted. */
  cancelGraceMs: number;
  /** Consecutive polls with an unrecognised state (or a task the upstream does not find) before giving up. */
  maxUnknownPolls: number;
  /** Consecutive failed polls (no answer, 5xx) before giving up. */
  maxPollErrors: number;
  /** Pause before looking again for a channel when every one was open or at its limit. */
  channelWaitMs: number;
}

export const DEFAULT_RELAY_TIMINGS: RelayTimings = {
  longPollGapMs: 1000,
  backoffBaseMs: 1000,
  backoffMaxMs: 30_000,
  reconcileSettleMs: 2000,
  inFlightRetryMs: 1000,
  cancelGraceMs: 2000,
  maxUnknownPolls: 30,
  maxPollErrors: 20,
  channelWaitMs: 1000,
};

/** Marks a wait cut short by the attempt's signal; the generator turns it into the right failure. */
export class RelayAborted extends Error {
  constructor() {
    super('aborted');
  }
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new RelayAborted());
    const onAbort = () => {
      clearTimeout(timer);
      reject(new RelayAborted());
    };
    const timer = setTimeout(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Exponential with jitter (75–100 %), so many tasks of one upstream do not retry in step. */
export function backoffMs(retry: number, t: RelayTimings, random: () => number = Math.random): number {
  const exponential = Math.min(t.backoffMaxMs, t.backoffBaseMs * 2 ** Math.max(0, retry - 1));
  return Math.round(exponential * (1 - 0.25 * random()));
}

/**
 * Decides the pause before the next poll. An upstream that honours `?wait=` answers on change or
 * at the deadline, so polling again soon is right; one that ignores it gets its Retry-After hint or
 * the dialect's interval. A held answer proves support; a quick one may just be a change (queued →
 * running), so it earns one early probe before falling back to the interval.
 */
export class PollPacer {
  private support: 'unknown' | 'probing' | 'yes' | 'no' = 'unknown';
  private quickChanges = 0;

  constructor(
    private readonly intervalMs: number,
    private readonly gapMs: number,
  ) {}

  /**
   * `changed`: the answer reported another state or progress than the one before (a quick answer then proves nothing).
   */
  pause(elapsedMs: number, waitSeconds: number, retryAfter: number | undefined, changed = false): number {
    if (waitSeconds > 0 && elapsedMs >= Math.min(waitSeconds * 800, 1000)) this.support = 'yes';
    else if (waitSeconds > 0 && this.support === 'unknown') this.support = 'probing';
    // A quick answer that reports a change may be the upstream answering on change; a few in a row are not.
    else if (this.support === 'probing' && (!changed || ++this.quickChanges >= 3)) this.support = 'no';
    if (this.support === 'yes' || this.support === 'probing') return this.gapMs;
    return Math.max(0, (retryAfter ?? this.intervalMs) - elapsedMs);
  }

  /** Whether asking for `?wait=` is still worth it. */
  get longPolling(): boolean {
    return this.support !== 'no';
  }
}
