import { dirname } from 'node:path';
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Lane } from '../engine/worker.ts';
import type { Generator } from '../generators/generator.ts';
import { FfmpegRenderer } from '../generators/ffmpeg/ffmpeg-renderer.ts';
import type { ChannelHealth } from '../generators/relay/channel-health.ts';
import type { ComfyUiHostListing } from '../generators/comfyui/comfyui-backends.ts';
import type { RelayChannelDirectory } from '../generators/relay/relay-channel-directory.ts';
import { createSafeFetch } from '../security/create-safe-fetch.ts';

export interface Backends {
  generators: Record<string, Generator>;
  lanes: Record<string, Lane>;
  /** Present when VIDGEN_BACKENDS_FILE names relays: the admin API and metrics read and change them. */
  relayChannels?: RelayChannelDirectory;
  /** Present when VIDGEN_COMFYUI_CONFIG is set: the admin API lists the hosts, as this process sees them. */
  comfyUiHosts?: () => ComfyUiHostListing[];
}

/**
 * Every backend a catalog model may name, with its lane: the built-in renderer always, plus the
 * ComfyUI backends of VIDGEN_COMFYUI_CONFIG and the relays of VIDGEN_BACKENDS_FILE. API-only
 * processes build them too (the catalog checks model entries against them); constructing one
 * opens no connection.
 */
export async function buildBackends(
  config: Config,
  binaries: { ffmpeg: string; ffprobe: string },
  logger: Logger,
  channelHealth: ChannelHealth,
): Promise<Backends> {
  const generators: Record<string, Generator> = {
    renderer: new FfmpegRenderer({ ffmpeg: binaries.ffmpeg, preset: config.renderPreset }),
  };
  const lanes: Record<string, Lane> = {
    renderer: { slots: config.workerConcurrency, deadlineMs: config.renderDeadlineSeconds * 1000 },
  };
  let comfyUiHosts: Backends['comfyUiHosts'];
  if (config.comfyUiConfigFile) {
    const raw = JSON.parse(await readFile(config.comfyUiConfigFile, 'utf8'));
    // ComfyUI and relay backends (and their WebSocket and HTTP clients) load only when configured.
    const { createComfyUiBackends } = await import('../generators/comfyui/comfyui-backends.ts');
    const comfy = await createComfyUiBackends(raw, {
      ...binaries,
      baseDir: dirname(config.comfyUiConfigFile),
      logger: logger.child({ component: 'comfyui' }),
    });
    for (const [name, generator] of Object.entries(comfy.generators)) {
      generators[name] = generator;
      lanes[name] = { slots: comfy.lanes[name] ?? 1, deadlineMs: config.backendDeadlineSeconds * 1000 };
    }
    comfyUiHosts = comfy.hosts;
  }
  let relayChannels: RelayChannelDirectory | undefined;
  if (config.backendsFile) {
    const { createRelayBackends } = await import('../generators/relay/relay-backends.ts');
    const relays = createRelayBackends(JSON.parse(await readFile(config.backendsFile, 'utf8')), config.secretsEnv, {
      health: channelHealth,
      // Links an upstream hands out on other hosts go through the SSRF-safe fetcher, sized for videos.
      foreignFetch: ({ maxBytes, timeoutMs }) =>
        createSafeFetch({ allowPrivate: config.allowPrivateUrls, timeoutMs, maxBytes, maxRedirects: 5, what: 'video' }),
      logger: logger.child({ component: 'relay' }),
      binaries,
    });
    for (const [name, generator] of Object.entries(relays.generators)) {
      if (generators[name]) throw new Error(`backends file: backend "${name}" is already defined`);
      generators[name] = generator;
      lanes[name] = { slots: relays.slots[name], deadlineMs: relays.deadlinesMs[name] };
    }
    relayChannels = relays.channels;
  }
  return { generators, lanes, relayChannels, comfyUiHosts };
}
