import type { CancelCharge } from '../../catalog/cancel-charge.ts';

export type { CancelCharge };

/** Kept with the upstream id when the channel cannot cancel: read by the ledger when the task is canceled. */
export interface Unstoppable {
  charge: CancelCharge;
  /** What the channel charges the operator per output second, when configured: the cost of a render nobody follows. */
  upstreamUsdTicksPerSecond?: number;
}

/**
 * What the relay keeps in a task's checkpoint. It is written before each create is sent (so a
 * crash mid-submit leaves "sent, outcome unknown", which the next attempt reconciles first) and
 * again with the upstream id before any waiting. It names the channel by its hash, never its URL.
 */
export interface RelayCheckpoint {
  relay: 1;
  /** RelayChannelConfig.id */
  channel: string;
  idempotencyKey: string;
  /** Present once the upstream confirmed the task. */
  upstreamId?: string;
  /**
   * What the upstream reported the task cost, in USD ticks (10⁻¹⁰ USD, the ledger's unit), once
   * it finished: xAI `usage.cost_in_usd_ticks`. For the operator's margin report.
   */
  upstreamCostUsdTicks?: number;
  /** Usage figures the upstream reported, in seconds (Replicate `predict_time`, fal `inference_time`). */
  upstreamMetrics?: Record<string, number>;
  /**
   * We canceled the upstream job at the engine's deadline: the task is over for good, and a later
   * attempt (after a crash before the failure was recorded) must neither follow it nor pay again.
   */
  upstreamCanceled?: true;
  /** Present once an upstream that cannot cancel accepted the task. */
  unstoppable?: Unstoppable;
}

export function parseRelayCheckpoint(state: unknown): RelayCheckpoint | undefined {
  const s = state as Partial<RelayCheckpoint> | null | undefined;
  if (!s || s.relay !== 1 || typeof s.channel !== 'string' || typeof s.idempotencyKey !== 'string') return undefined;
  if (s.upstreamId !== undefined && typeof s.upstreamId !== 'string') return undefined;
  const cost = Number.isSafeInteger(s.upstreamCostUsdTicks) ? s.upstreamCostUsdTicks : undefined;
  const metrics = s.upstreamMetrics && typeof s.upstreamMetrics === 'object' ? s.upstreamMetrics : undefined;
  return {
    relay: 1,
    channel: s.channel,
    idempotencyKey: s.idempotencyKey,
    upstreamId: s.upstreamId,
    ...(cost !== undefined ? { upstreamCostUsdTicks: cost } : {}),
    ...(metrics ? { upstreamMetrics: metrics } : {}),
    ...(s.upstreamCanceled === true ? { upstreamCanceled: true as const } : {}),
    ...(unstoppableOf(s.unstoppable) ? { unstoppable: s.unstoppable } : {}),
  };
}

function unstoppableOf(u: Unstoppable | undefined): boolean {
  const kind = u?.charge?.kind;
  if (!u || (kind !== 'none' && kind !== 'full' && kind !== 'fee')) return false;
  if (kind === 'fee' && !Number.isSafeInteger((u.charge as { usdTicks: number }).usdTicks)) return false;
  return u.upstreamUsdTicksPerSecond === undefined || Number.isSafeInteger(u.upstreamUsdTicksPerSecond);
}
