/**
 * Relay channel gauges on the process's Prometheus registry, read from the shared state at scrape
 * time (so every process reports the same figures): breaker state, failures in the window, tasks
 * in flight, creates in the last minute.
 */
import { Gauge, type Registry } from 'prom-client';
import type { RelayChannelDirectory } from './relay-channel-directory.ts';

const STATES = ['closed', 'open', 'half_open'] as const;

export function registerRelayChannelMetrics(registry: Registry, directory: RelayChannelDirectory): void {
  const labelNames = ['backend', 'channel'];
  const state = new Gauge({
    name: 'vidgen_relay_channel_state',
    help: 'Relay channel breaker state (1 for the current one)',
    labelNames: [...labelNames, 'state'],
    registers: [registry],
  });
  const failures = new Gauge({
    name: 'vidgen_relay_channel_failures',
    help: 'Definite failures of a relay channel in its breaker window',
    labelNames,
    registers: [registry],
  });
  const running = new Gauge({
    name: 'vidgen_relay_channel_running',
    help: 'Tasks holding a slot of a relay channel',
    labelNames,
    registers: [registry],
  });
  const rpm = new Gauge({
    name: 'vidgen_relay_channel_requests_last_minute',
    help: 'Creates sent to a relay channel in the last minute',
    labelNames,
    registers: [registry],
  });
  const enabled = new Gauge({
    name: 'vidgen_relay_channel_enabled',
    help: 'Whether a relay channel takes new tasks (operator override)',
    labelNames,
    registers: [registry],
  });
  let collecting: Promise<void> | undefined;
  const collect = async () => {
    const all = await directory.status();
    for (const g of [state, failures, running, rpm, enabled]) g.reset();
    for (const c of all) {
      const labels = { backend: c.backend, channel: c.name };
      for (const s of STATES) state.set({ ...labels, state: s }, c.state === s ? 1 : 0);
      failures.set(labels, c.failures);
      running.set(labels, c.running);
      rpm.set(labels, c.requestsLastMinute);
      enabled.set(labels, c.enabled ? 1 : 0);
    }
  };
  const once = () => (collecting ??= collect().finally(() => (collecting = undefined)));
  for (const g of [state, failures, running, rpm, enabled]) Object.assign(g, { collect: once });
}
