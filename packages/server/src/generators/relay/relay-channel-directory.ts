/**
 * The operator's view of every relay channel: its place in the backends file joined with the state
 * all processes share (breaker, load, runtime overrides). The admin API lists it and changes it
 * here; `/metrics` reads it at scrape time. Names and dialects only: never a URL or key.
 */
import type { ChannelHealth, ChannelSnapshot } from './channel-health.ts';
import type { RelayBackendConfig, RelayChannelConfig } from './relay-config.ts';
import { testChannel, type ChannelTestResult } from './test-channel.ts';

export interface RelayChannelStatus extends Omit<ChannelSnapshot, 'override'> {
  backend: string;
  name: string;
  dialect: RelayChannelConfig['dialect'];
  upstream: RelayChannelConfig['upstream'];
  priority: number;
  /** As in effect: the override's, else the file's. */
  weight: number;
  enabled: boolean;
  maxConcurrent?: number;
  maxRpm?: number;
  /** What the channel takes (channel-inputs.ts). */
  inputs: RelayChannelConfig['inputs'];
}

export class RelayChannelDirectory {
  constructor(
    private readonly configs: Record<string, RelayBackendConfig>,
    private readonly health?: ChannelHealth,
  ) {}

  async status(now = Date.now()): Promise<RelayChannelStatus[]> {
    const all = Object.entries(this.configs).flatMap(([backend, config]) =>
      config.channels.map((channel) => ({ backend, channel })),
    );
    const snapshots = this.health ? await this.health.snapshot([...new Set(all.map((x) => x.channel.id))], now) : [];
    return all.map(({ backend, channel }) => {
      const s = snapshots.find((x) => x.channelId === channel.id);
      return {
        backend,
        name: channel.name,
        dialect: channel.dialect,
        upstream: channel.upstream,
        priority: channel.priority,
        channelId: channel.id,
        state: s?.state ?? 'closed',
        failures: s?.failures ?? 0,
        openedAt: s?.openedAt,
        running: s?.running ?? 0,
        requestsLastMinute: s?.requestsLastMinute ?? 0,
        calls: s?.calls ?? { count: 0, p50LatencyMs: null, errorRate: null },
        weight: s?.override.weight ?? channel.weight,
        enabled: s?.override.enabled ?? true,
        maxConcurrent: channel.limits.maxConcurrent,
        maxRpm: channel.limits.maxRpm,
        inputs: channel.inputs,
      };
    });
  }

  /**
   * The operator's "Test" of one channel (test-channel.ts), recorded with its calls; undefined when no
   * such channel exists.
   */
  async test(backend: string, name: string, now: () => number = Date.now): Promise<ChannelTestResult | undefined> {
    const channel = this.configs[backend]?.channels.find((c) => c.name === name);
    if (!channel) return undefined;
    const result = await testChannel(channel);
    await this.health?.called(channel.id, result.latencyMs, result.ok, now()).catch(() => undefined);
    return result;
  }

  /**
   * Runtime changes without a restart: enable or disable a channel, change its weight (`null`
   * returns to the file's value). The backends file stays the source of the channel list.
   * Returns false when no such channel exists (the admin route answers 404).
   */
  async configure(
    backend: string,
    name: string,
    change: { enabled?: boolean | null; weight?: number | null },
    now = Date.now(),
  ): Promise<boolean> {
    const channel = this.configs[backend]?.channels.find((c) => c.name === name);
    if (!channel || !this.health) return false;
    if (change.weight !== undefined && change.weight !== null && !(change.weight > 0 && Number.isFinite(change.weight)))
      throw new RangeError('weight must be a positive number');
    await this.health.setOverride(channel.id, change, now);
    return true;
  }
}
