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
}

export function parseRelayCheckpoint(state: unknown): RelayCheckpoint | undefined {
  const s = state as Partial<RelayCheckpoint> | null | undefined;
  if (!s || s.relay !== 1 || typeof s.channel !== 'string' || typeof s.idempotencyKey !== 'string') return undefined;
  if (s.upstreamId !== undefined && typeof s.upstreamId !== 'string') return undefined;
  return { relay: 1, channel: s.channel, idempotencyKey: s.idempotencyKey, upstreamId: s.upstreamId };
}
