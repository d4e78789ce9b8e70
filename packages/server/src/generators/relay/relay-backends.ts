/**
 * Builds the relay backends of a backends file (docs/relays.md): every entry with `"type": "relay"`
 * becomes one generator under its name, which catalog models name in their "backend" field.
 * Entries of other types are left to their own builders.
 */
import type { RelayBackendConfig } from './relay-config.ts';
import { parseRelayBackend } from './relay-config.ts';
import type { SafeFetch } from '../../security/safe-fetch.ts';
import { RelayGenerator, type RelayGeneratorOptions } from './relay-generator.ts';
import { RelayChannelDirectory } from './relay-channel-directory.ts';

export interface RelayBackendsOptions extends Omit<RelayGeneratorOptions, 'fetchForeign'> {
  /** The SSRF-safe fetcher for video links on other origins, made to each backend's limits. */
  foreignFetch(limits: { maxBytes: number; timeoutMs: number }): SafeFetch;
}

export interface RelayBackends {
  generators: Record<string, RelayGenerator>;
  /** Every channel with its shared state, for `/metrics` and the admin API (`GET /admin/v1/channels`). */
  channels: RelayChannelDirectory;
  /** Worker slots per backend: following an upstream task is cheap, so more than a renderer gets. */
  slots: Record<string, number>;
  /**
   * The engine's hard limit per attempt: past the relay's own limits, so the relay ends an attempt
   * itself (transiently, leaving the upstream task to the next attempt) before the engine must.
   */
  deadlinesMs: Record<string, number>;
}

const DEADLINE_MARGIN_MS = 60_000;

export function createRelayBackends(
  file: unknown,
  env: Record<string, string | undefined>,
  options: RelayBackendsOptions,
): RelayBackends {
  const backends = (file as { backends?: unknown } | undefined)?.backends;
  if (!backends || typeof backends !== 'object' || Array.isArray(backends))
    throw new Error('backends file: "backends" must be an object');
  const configs: Record<string, RelayBackendConfig> = {};
  const result: RelayBackends = {
    generators: {},
    slots: {},
    deadlinesMs: {},
    channels: new RelayChannelDirectory(configs, options.health),
  };
  for (const [name, raw] of Object.entries(backends as Record<string, unknown>)) {
    if ((raw as { type?: unknown } | undefined)?.type !== 'relay') continue;
    const config: RelayBackendConfig = parseRelayBackend(raw, env, `backends.${name}`);
    configs[name] = config;
    const fetchForeign = options.foreignFetch({ maxBytes: config.maxVideoBytes, timeoutMs: config.downloadTimeoutMs });
    result.generators[name] = new RelayGenerator(config, {
      fetchForeign,
      timings: options.timings,
      logger: options.logger?.child({ backend: name }),
      health: options.health,
      now: options.now,
      binaries: options.binaries,
    });
    result.slots[name] = config.slots;
    // An operator's own limit may be shorter: the attempt is then stopped, the upstream job canceled
    // where it can be, and the task fails for good (docs/relays.md §3.9).
    result.deadlinesMs[name] = config.deadlineMs ?? config.timeoutMs + config.downloadTimeoutMs + DEADLINE_MARGIN_MS;
  }
  return result;
}
