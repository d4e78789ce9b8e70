import type { FastifyInstance } from 'fastify';
import {
  ComfyUiHostList,
  RelayChannelList,
  RelayChannelObject,
  RelayChannelPatchBody,
  RelayChannelTestAnswer,
} from '@vidgen/protocol';
import type { ComfyUiHostListing } from '../../generators/comfyui/comfyui-backends.ts';
import type { RelayChannelDirectory, RelayChannelStatus } from '../../generators/relay/relay-channel-directory.ts';
import { ApiError, InvalidRequest } from '../../errors.ts';
import { idParams } from '../route-schemas.ts';
import type { AdminRoute } from './admin-route.ts';

/** What the admin API needs of the relay channels: the directory main.ts builds from VIDGEN_BACKENDS_FILE. */
export type ChannelAdmin = Pick<RelayChannelDirectory, 'status' | 'configure' | 'test'>;
/** The ComfyUI hosts of VIDGEN_COMFYUI_CONFIG as this process sees them (composition/backends.ts). */
export type ComfyUiHostsAdmin = () => ComfyUiHostListing[];

function toChannelObject(s: RelayChannelStatus): RelayChannelObject {
  return {
    object: 'relay_channel',
    backend: s.backend,
    name: s.name,
    dialect: s.dialect,
    upstream: s.upstream,
    priority: s.priority,
    weight: s.weight,
    enabled: s.enabled,
    state: s.state,
    failures: s.failures,
    opened_at: s.openedAt ?? null,
    running: s.running,
    requests_last_minute: s.requestsLastMinute,
    p50_latency_ms: s.calls.p50LatencyMs,
    error_rate: s.calls.errorRate,
    calls_last_5_minutes: s.calls.count,
    limits: { max_concurrent: s.maxConcurrent ?? null, max_rpm: s.maxRpm ?? null },
    inputs: { ...s.inputs, exclusive: s.inputs.exclusive.map((group) => [...group]) },
  };
}

/**
 * Relay channels for the operator: their breaker, load and limits as every worker
 * process shares them, and runtime changes (enable, weight) that take effect on the next task.
 * The backends file stays the list of channels; without one the list is empty.
 */
export function registerAdminChannelRoutes(
  app: FastifyInstance,
  deps: { route: AdminRoute; channels?: ChannelAdmin; comfyUiHosts?: ComfyUiHostsAdmin },
): void {
  const { route, channels } = deps;
  app.get(
    '/admin/v1/comfyui-hosts',
    route(
      'adminListComfyUiHosts',
      'The ComfyUI hosts with their slots, read-only; busy slots and cooldowns are those of the answering process',
      {},
      ComfyUiHostList,
      'Every host of the ComfyUI config, in its order',
    ),
    async () => ({
      object: 'list' as const,
      cooldown_scope: 'process' as const,
      data: (deps.comfyUiHosts?.() ?? []).map((h) => ({
        object: 'comfyui_host' as const,
        name: h.name,
        slots: h.slots,
        busy: h.busy,
        cooling_down_until: h.coolingDownUntil,
        backends: h.backends,
      })),
    }),
  );

  app.get(
    '/admin/v1/channels',
    route(
      'adminListChannels',
      'Relay channels with their breaker state, load, weight and limits',
      {},
      RelayChannelList,
      'Every channel of the backends file',
    ),
    async () => ({ object: 'list' as const, data: channels ? (await channels.status()).map(toChannelObject) : [] }),
  );

  type Params = { backend: string; name: string };
  app.patch<{ Params: Params; Body: RelayChannelPatchBody }>(
    '/admin/v1/channels/:backend/:name',
    route(
      'adminUpdateChannel',
      'Enable or disable a relay channel, or change its weight, without a restart (`null`: back to the backends file)',
      { params: idParams('backend', 'name'), body: RelayChannelPatchBody },
      RelayChannelObject,
      'The channel',
    ),
    async (request) => {
      const { backend, name } = request.params;
      let known = false;
      try {
        known = channels ? await channels.configure(backend, name, request.body) : false;
      } catch (err) {
        if (err instanceof RangeError)
          throw new InvalidRequest('out_of_range', '`weight` must be a positive number.', 'weight');
        throw err;
      }
      const status = known
        ? (await channels!.status()).find((s) => s.backend === backend && s.name === name)
        : undefined;
      if (!status) throw noChannel(backend, name);
      return toChannelObject(status);
    },
  );

  app.post<{ Params: Params }>(
    '/admin/v1/channels/:backend/:name/test',
    route(
      'adminTestChannel',
      'One cheap call to the channel (a poll of a task that does not exist): ' +
        'does the upstream answer and take the key?',
      { params: idParams('backend', 'name') },
      RelayChannelTestAnswer,
      'What the upstream answered',
    ),
    async (request) => {
      const { backend, name } = request.params;
      const result = channels ? await channels.test(backend, name) : undefined;
      if (!result) throw noChannel(backend, name);
      return {
        object: 'relay_channel_test' as const,
        backend,
        name,
        ok: result.ok,
        status: result.status,
        latency_ms: result.latencyMs,
        message: result.message,
      };
    },
  );
}

function noChannel(backend: string, name: string): ApiError {
  return new ApiError(
    404,
    'not_found_error',
    'channel_not_found',
    `No relay channel '${name}' in backend '${backend}'.`,
  );
}
