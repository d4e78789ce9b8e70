/**
 * Builds ComfyUI backends from the operator's config file (the shape is in docs/comfyui.md). One
 * backend per model, all sharing one pool of hosts; the catalog names a backend in its "backend"
 * field. Every mistake stops the service at start with a message naming the field.
 */
import { isAbsolute, resolve } from 'node:path';
import type { Logger } from 'pino';
import type { Generator } from '../generator.ts';
import { ComfyUiGenerator } from './comfyui-generator.ts';
import { ComfyUiHostPool, type ComfyUiHostConfig, type ComfyUiHostStatus } from './comfyui-host-pool.ts';
import type { ComfyUiWorkflows } from './render-plan.ts';
import { loadPreset, loadWorkflowFile } from './workflow-presets.ts';

export interface ComfyUiBackendDeps {
  ffmpeg: string;
  ffprobe: string;
  /** Relative workflow paths in the config are resolved against this (the config file's folder). */
  baseDir: string;
  logger?: Logger;
}

export interface ComfyUiBackends {
  generators: Record<string, Generator>;
  /** Worker slots per backend: the slots of the hosts it may use. */
  lanes: Record<string, number>;
  pool: ComfyUiHostPool;
  /** The hosts with the backends that may render on each (the admin API lists them, read-only). */
  hosts(): ComfyUiHostListing[];
}

export interface ComfyUiHostListing extends ComfyUiHostStatus {
  backends: string[];
}

type Raw = Record<string, unknown>;

export async function createComfyUiBackends(raw: unknown, deps: ComfyUiBackendDeps): Promise<ComfyUiBackends> {
  const fail = (what: string): never => {
    throw new Error(`ComfyUI config: ${what}`);
  };
  const config = (raw && typeof raw === 'object' ? raw : fail('must be a JSON object')) as Raw;
  if (!Array.isArray(config.hosts) || config.hosts.length === 0) fail('"hosts" must be a non-empty list');
  const hosts = (config.hosts as Raw[]).map(
    (h, i): ComfyUiHostConfig => ({
      name: typeof h?.name === 'string' ? h.name : fail(`hosts[${i}].name is required`),
      url: typeof h.url === 'string' ? h.url : fail(`hosts[${i}].url is required`),
      slots: h.slots === undefined ? 1 : Number(h.slots),
      headers: stringMap(h.headers, `hosts[${i}].headers`, fail),
    }),
  );
  const pool = new ComfyUiHostPool(hosts, {
    requestTimeoutMs: seconds(config.request_timeout_seconds, 15, 'request_timeout_seconds', fail),
  });
  const backends =
    config.backends && typeof config.backends === 'object'
      ? (config.backends as Record<string, Raw>)
      : fail('"backends" must be an object');
  const generators: Record<string, Generator> = {};
  const lanes: Record<string, number> = {};
  const allowedHosts: Record<string, readonly string[] | undefined> = {};
  for (const [name, b] of Object.entries(backends)) {
    const where = `backends.${name}`;
    const workflows = await backendWorkflows(b ?? {}, deps.baseDir, (what) => fail(`${where}: ${what}`));
    const allowed =
      b.hosts === undefined
        ? undefined
        : Array.isArray(b.hosts)
          ? b.hosts.map(String)
          : fail(`${where}.hosts must be a list of host names`);
    generators[name] = new ComfyUiGenerator({
      pool,
      hosts: allowed,
      workflows,
      ffmpeg: deps.ffmpeg,
      ffprobe: deps.ffprobe,
      logger: deps.logger?.child({ backend: name }),
      timeoutMs: seconds(b.timeout_seconds, 1800, `${where}.timeout_seconds`, fail),
      cancelHoldMs: seconds(config.cancel_hold_seconds, 600, 'cancel_hold_seconds', fail),
    });
    lanes[name] = pool.slotsOf(allowed);
    allowedHosts[name] = allowed;
  }
  if (Object.keys(generators).length === 0) fail('"backends" is empty');
  const listing = () =>
    pool.status().map((h) => ({
      ...h,
      backends: Object.keys(allowedHosts).filter((b) => allowedHosts[b]?.includes(h.name) ?? true),
    }));
  return { generators, lanes, pool, hosts: listing };
}

async function backendWorkflows(b: Raw, baseDir: string, fail: (what: string) => never): Promise<ComfyUiWorkflows> {
  const base: ComfyUiWorkflows = typeof b.preset === 'string' ? await loadPreset(b.preset) : {};
  const file = async (key: string) => {
    const v = b[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'string') return fail(`${key} must be a file path`);
    return loadWorkflowFile(isAbsolute(v) ? v : resolve(baseDir, v));
  };
  const num = (key: string) =>
    b[key] === undefined
      ? undefined
      : typeof b[key] === 'number'
        ? (b[key] as number)
        : fail(`${key} must be a number`);
  const merged: ComfyUiWorkflows = {
    ...base,
    textToVideo: (await file('text_to_video')) ?? base.textToVideo,
    imageToVideo: (await file('image_to_video')) ?? base.imageToVideo,
    firstLastToVideo: (await file('first_last_to_video')) ?? base.firstLastToVideo,
    keyframesToVideo: (await file('keyframes_to_video')) ?? base.keyframesToVideo,
    referencesToVideo: (await file('references_to_video')) ?? base.referencesToVideo,
    sizeMultiple: num('size_multiple') ?? base.sizeMultiple,
    lengthStep: num('length_step') ?? base.lengthStep,
    renderFps: num('render_fps') ?? base.renderFps,
    maxRenderPixels: num('max_render_pixels') ?? base.maxRenderPixels,
    negativePrompt: typeof b.negative_prompt === 'string' ? b.negative_prompt : base.negativePrompt,
    sound:
      b.sound === undefined
        ? base.sound
        : b.sound === true
          ? true
          : b.sound === false
            ? false
            : fail('sound must be true or false'),
  };
  const any = [
    merged.textToVideo,
    merged.imageToVideo,
    merged.firstLastToVideo,
    merged.keyframesToVideo,
    merged.referencesToVideo,
  ];
  if (!any.some(Boolean))
    fail(
      'needs a "preset" or workflow files ("text_to_video", "image_to_video", "first_last_to_video", ' +
        '"keyframes_to_video", "references_to_video")',
    );
  return merged;
}

function seconds(v: unknown, fallback: number, name: string, fail: (what: string) => never): number {
  if (v === undefined) return fallback * 1000;
  if (typeof v !== 'number' || !(v > 0)) fail(`${name} must be a positive number of seconds`);
  return (v as number) * 1000;
}

function stringMap(v: unknown, name: string, fail: (what: string) => never): Record<string, string> | undefined {
  if (v === undefined) return undefined;
  if (!v || typeof v !== 'object' || Object.values(v).some((x) => typeof x !== 'string'))
    fail(`${name} must map names to strings`);
  return v as Record<string, string>;
}
