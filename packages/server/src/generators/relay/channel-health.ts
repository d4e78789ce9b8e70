/**
 * Channels that look after themselves (docs/relays.md §8): a circuit breaker per channel, its
 * concurrency and requests-per-minute limits, and the operator's runtime overrides, all shared by
 * every worker process through the database (sql-channel-health.ts). The relay asks this before a
 * create; it never blocks a task that already has an upstream job.
 */

/** Breaker settings of one backend (`health` in the backends file). */
export interface BreakerSettings {
  /** Definite failures (refused connection, auth, "no channel", lost answers) that open the breaker… */
  failures: number;
  /** …within this window. */
  windowMs: number;
  /** How long an open channel is skipped before one live task probes it. */
  cooldownMs: number;
  /** How long the probe task has the half-open channel to itself. */
  probeMs: number;
}

export interface ChannelLimits {
  /** Upstream tasks of this channel in flight at once, across processes. */
  maxConcurrent?: number;
  /** Creates sent per minute, across processes. */
  maxRpm?: number;
}

export type ChannelState = 'closed' | 'open' | 'half_open';

/** What `admit` says about a channel: take it, take it as the one probe of a half-open breaker, or skip it. */
export type Admission = 'yes' | 'probe' | 'no';

export interface ChannelOverride {
  enabled?: boolean;
  weight?: number;
}

export interface ChannelSnapshot {
  channelId: string;
  state: ChannelState;
  /** Definite failures in the current window. */
  failures: number;
  openedAt?: number;
  override: ChannelOverride;
  /** Tasks holding a slot now. */
  running: number;
  /** Creates sent in the last minute. */
  requestsLastMinute: number;
  /** Calls of every kind made to it in the last five minutes, their median latency and share of errors. */
  calls: CallStats;
}

export interface CallStats {
  count: number;
  /** Null without a call. */
  p50LatencyMs: number | null;
  /** 0–1; null without a call. */
  errorRate: number | null;
}

/** How long calls are kept for their latency and error rate. */
export const CALL_WINDOW_MS = 5 * 60_000;

export interface ChannelHealth {
  admit(channelId: string, settings: BreakerSettings, now: number): Promise<Admission>;
  /** A create was accepted (or a poll answered): the breaker closes. */
  succeeded(channelId: string, now: number): Promise<void>;
  /** A definite failure; returns the state after it (so the caller can log an opening). */
  failed(channelId: string, settings: BreakerSettings, now: number): Promise<ChannelState>;
  /**
   * Takes a slot for `taskId` and counts a create, if the limits allow; `force` (a task that
   * already has an upstream job) always gets its slot and counts no create.
   */
  acquire(
    channelId: string,
    taskId: string,
    limits: ChannelLimits,
    holdUntil: number,
    now: number,
    force?: boolean,
  ): Promise<boolean>;
  /** Gives back every slot the task holds. */
  release(taskId: string): Promise<void>;
  overrides(channelIds: string[]): Promise<Map<string, ChannelOverride>>;
  /** Runtime changes (the admin API): enable/disable, weight; `null` returns to the file's value. */
  setOverride(
    channelId: string,
    change: { enabled?: boolean | null; weight?: number | null },
    now: number,
  ): Promise<void>;
  snapshot(channelIds: string[], now: number): Promise<ChannelSnapshot[]>;
  /** One call to the channel ended (answered or not): its latency and whether it looked healthy. */
  called(channelId: string, latencyMs: number, ok: boolean, now: number): Promise<void>;
}

export const DEFAULT_BREAKER: BreakerSettings = { failures: 5, windowMs: 60_000, cooldownMs: 30_000, probeMs: 120_000 };
