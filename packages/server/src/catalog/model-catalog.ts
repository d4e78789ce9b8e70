import type { ApiFamily, TaskKind } from '../domain/task.ts';
import { ASPECT_RATIOS, MODEL_ASPECT_RATIOS } from '@vidgen/protocol';
import { parseCancelCharge, type CancelCharge } from './cancel-charge.ts';
import { parseModelInputs } from './model-inputs.ts';
import type { ModelInputs } from '../domain/task-inputs.ts';

/** One model as the engine sees it, after the catalog file has been checked. */
export interface ModelEntry {
  id: string;
  aliases: string[];
  family: ApiFamily;
  backend: string;
  /** Short side of the output in pixels (720 for "720p"). */
  shortSide: number;
  /** The default output resolution ("720p"). */
  resolution: string;
  /** Every resolution a request may ask for (`resolution` first); the model's own when it fixes one. */
  resolutions: string[];
  /**
   * What a poll answer calls the model when the client sent its id: docs/service-spec.md's samples show
   * `vx-imagine-video-1.5` for `vx-imagine-video-1.5-720p`. Other names are echoed as sent.
   */
  reportedName?: string;
  durations: number[];
  aspectRatios: string[];
  requiresImage: boolean;
  /** What a generation may be composed from (docs/inputs.md); first frame only where the entry says nothing. */
  inputs: ModelInputs;
  capabilities: Record<TaskKind, boolean>;
  fps: number;
  ownedBy: string;
  created: number;
  /** What an output second costs; null for a model without a price (free). */
  price: ModelPrice | null;
  /** Whether the model's videos carry sound (docs/models.md). */
  sound: ModelSound;
  /**
   * What a cancel costs after a relay's upstream that cannot cancel accepted the task; wins over
   * the channel's `cancel_charge`. Absent: the channel's applies (docs/economics.md).
   */
  cancelCharge?: CancelCharge;
}

/**
 * `none`: silent videos only; `always`: every video has sound (Sora 2, Veo 3); `optional`: the
 * request chooses, and `default` is what a request that does not say gets.
 */
export type SoundMode = 'none' | 'optional' | 'always';
export interface ModelSound {
  mode: SoundMode;
  default: boolean;
}

/** Integer USD ticks (10⁻¹⁰ USD) per output second (invariant 7, docs/architecture.md: sums stay exact). */
export interface ModelPrice {
  usdTicksPerSecond: number;
  /** Overrides by output resolution ("1080p"), for models whose output size varies. */
  byResolution: Record<string, number>;
  /** Added per output second when the verified output has sound (fal prices Veo 3.1's sound this way). */
  soundUsdTicksPerSecond: number;
  /** What flex tasks and batch lines pay, in parts per million of the price (`batch_ratio`, 0.5 when unset). */
  batchRatioPpm?: number;
  /** What priority tasks pay, in parts per million of the price (`priority_ratio`, 1.5 when unset). */
  priorityRatioPpm?: number;
}

export interface ModelCatalog {
  list(): ModelEntry[];
  /** Resolves an id or alias. */
  find(idOrAlias: string): ModelEntry | undefined;
}

/**
 * The model name a task reports: the name the client sent (an id or an alias), except that the
 * id itself reports as the entry's `reportedName` where it has one (docs/models.md).
 */
export function reportedModelName(model: ModelEntry, requested: string): string {
  return requested === model.id && model.reportedName ? model.reportedName : requested;
}

/** Short side in pixels of a resolution such as "720p", or undefined when it is not one. */
export function shortSideOf(resolution: string): number | undefined {
  return /^(\d{3,4})p$/.test(resolution) ? Number(resolution.slice(0, -1)) : undefined;
}

/** Exact pixel size for a short side and an aspect ratio such as "16:9"; both sides even for yuv420p. */
export function outputSize(shortSide: number, ratio: string): { width: number; height: number } {
  const [a, b] = ratio.split(':').map(Number);
  const long = Math.round((shortSide * Math.max(a, b)) / Math.min(a, b) / 2) * 2;
  return a >= b ? { width: long, height: shortSide } : { width: shortSide, height: long };
}

/** The names a catalog file offers, for commands that name models without running backends. */
export interface ModelNames {
  /** Where the catalog came from, for messages ("the built-in catalog", a file path). */
  source: string;
  ids: string[];
  /** The id an id or alias names. */
  idOf(name: string): string | undefined;
}

/**
 * The ids and aliases of a parsed catalog file. Entries are not checked against backends here:
 * an operator command needs only the names, and the server refuses a bad entry at start.
 */
export function catalogModelNames(raw: unknown, source: string): ModelNames {
  const list = (raw as { models?: unknown })?.models;
  if (!Array.isArray(list)) throw new Error(`model catalog (${source}): "models" must be an array`);
  const idOf = new Map<string, string>();
  for (const entry of list as RawEntry[]) {
    if (typeof entry?.id !== 'string') continue;
    idOf.set(entry.id, entry.id);
    for (const alias of Array.isArray(entry.aliases) ? entry.aliases.map(String) : []) idOf.set(alias, entry.id);
  }
  const ids = list.map((e: RawEntry) => e?.id).filter((id): id is string => typeof id === 'string');
  return { source, ids, idOf: (name) => idOf.get(name) };
}

/** The names of a built catalog. */
export function namesOf(catalog: ModelCatalog, source: string): ModelNames {
  return { source, ids: catalog.list().map((e) => e.id), idOf: (name) => catalog.find(name)?.id };
}

/**
 * Model names as an account's entitlement keeps them: by id (that is what submits are checked
 * against), so an alias becomes its id; `unknown` lists the names the catalog lacks, which would
 * grant nothing.
 */
export function resolveModelNames(requested: readonly string[], names: Pick<ModelNames, 'idOf'>) {
  const unknown = requested.filter((name) => names.idOf(name) === undefined);
  const resolved = requested
    .filter((name) => !unknown.includes(name))
    .map((name) => ({ name, id: names.idOf(name) as string }));
  return {
    ids: [...new Set(resolved.map((r) => r.id))],
    unknown,
    aliases: resolved.filter((r) => r.name !== r.id),
  };
}

type RawEntry = Record<string, unknown>;

/**
 * Builds a catalog from the parsed JSON of a catalog file. Every entry is checked here so a
 * bad file stops the service at start with a message naming the entry, never at submit.
 */
export function createModelCatalog(raw: unknown, backends: Record<string, readonly TaskKind[]>): ModelCatalog {
  const list = (raw as { models?: unknown })?.models;
  if (!Array.isArray(list) || list.length === 0) throw new Error('model catalog: "models" must be a non-empty array');
  const entries = list.map((entry, i) => parseEntry(entry as RawEntry, i, backends));
  const byName = new Map<string, ModelEntry>();
  for (const entry of entries) {
    for (const name of [entry.id, ...entry.aliases]) {
      if (byName.has(name)) throw new Error(`model catalog: the name "${name}" is used twice`);
      byName.set(name, entry);
    }
  }
  return { list: () => entries, find: (name) => byName.get(name) };
}

function parseEntry(e: RawEntry, index: number, backends: Record<string, readonly TaskKind[]>): ModelEntry {
  const where = `model catalog entry ${index}${typeof e.id === 'string' ? ` ("${e.id}")` : ''}`;
  const fail = (what: string): never => {
    throw new Error(`${where}: ${what}`);
  };
  if (typeof e.id !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._:-]*$/.test(e.id)) fail('"id" must be a plain identifier');
  // The tag of the dialect that serves the model ("A", "B"); one letter, as the tasks table keeps it.
  if (typeof e.family !== 'string' || !/^[A-Z]$/.test(e.family))
    fail('"family" must be "A" or "B" (an API dialect\'s letter)');
  const backend = typeof e.backend === 'string' ? e.backend : fail('"backend" is required');
  const supported = backends[backend] ?? fail(`backend "${backend}" is not configured`);
  const resolution = String(e.resolution ?? '720p');
  const shortSide = shortSideOf(resolution) ?? fail('"resolution" must look like "720p"');
  const others = Array.isArray(e.resolutions) ? e.resolutions.map(String) : [];
  for (const r of others) if (shortSideOf(r) === undefined) fail(`"resolutions": "${r}" must look like "720p"`);
  const resolutions = [resolution, ...others.filter((r) => r !== resolution)];
  if (e.reported_name !== undefined && (typeof e.reported_name !== 'string' || e.reported_name === ''))
    fail('"reported_name" must be a non-empty string');
  const durations = parseDurations(e.durations) ?? fail('"durations" must be a list of seconds or {min, max}');
  const aspectRatios = (e.aspect_ratios as string[] | undefined) ?? [...ASPECT_RATIOS];
  for (const r of aspectRatios) if (!MODEL_ASPECT_RATIOS.includes(r)) fail(`unknown aspect ratio "${r}"`);
  const caps = (e.capabilities ?? {}) as Partial<Record<TaskKind, boolean>>;
  const capabilities = { generate: caps.generate ?? true, edit: caps.edit ?? false, extend: caps.extend ?? false };
  for (const kind of ['generate', 'edit', 'extend'] as const) {
    if (capabilities[kind] && !supported.includes(kind)) fail(`backend "${backend}" cannot ${kind}`);
  }
  return {
    id: e.id as string,
    aliases: Array.isArray(e.aliases) ? e.aliases.map(String) : [],
    family: e.family as ApiFamily,
    backend,
    shortSide,
    resolution,
    resolutions,
    ...(typeof e.reported_name === 'string' ? { reportedName: e.reported_name } : {}),
    durations,
    aspectRatios,
    requiresImage: e.requires_image === true,
    inputs: parseModelInputs(e.inputs, fail),
    capabilities,
    fps: typeof e.fps === 'number' ? e.fps : 24,
    ownedBy: typeof e.owned_by === 'string' ? e.owned_by : 'vidgen',
    created: typeof e.created === 'number' ? e.created : 1767225600,
    price: e.price === undefined ? null : parsePrice(e.price, fail),
    sound: parseSound(e.sound, fail),
    ...(e.cancel_charge !== undefined ? { cancelCharge: parseCancelCharge(e.cancel_charge, fail) } : {}),
  };
}

/**
 * `"none"` (the default: a catalog written before sound existed claims none), `"always"`, or `{"optional": <default>}`.
 */
function parseSound(value: unknown, fail: (what: string) => never): ModelSound {
  if (value === undefined || value === 'none') return { mode: 'none', default: false };
  if (value === 'always') return { mode: 'always', default: true };
  const optional = (value as { optional?: unknown } | null)?.optional;
  if (typeof optional === 'boolean' && Object.keys(value as object).length === 1)
    return { mode: 'optional', default: optional };
  return fail('"sound" must be "none", "always" or {"optional": <default true or false>}');
}

function parsePrice(value: unknown, fail: (what: string) => never): ModelPrice {
  const ticks = (v: unknown, what: string): number =>
    Number.isSafeInteger(v) && (v as number) >= 0
      ? (v as number)
      : fail(`${what} must be a non-negative integer of USD ticks`);
  const raw = (value ?? {}) as {
    usd_ticks_per_second?: unknown;
    by_resolution?: unknown;
    sound_usd_ticks_per_second?: unknown;
    batch_ratio?: unknown;
    priority_ratio?: unknown;
  };
  const ratio = (v: unknown, fallback: number, what: string): number => {
    if (v === undefined) return fallback;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 100)
      fail(`${what} must be a number from 0 to 100`);
    return Math.round((v as number) * 1_000_000);
  };
  const byResolution: Record<string, number> = {};
  for (const [resolution, v] of Object.entries((raw.by_resolution ?? {}) as Record<string, unknown>)) {
    if (!/^\d{3,4}p$/.test(resolution)) fail(`"price.by_resolution" key "${resolution}" must look like "720p"`);
    byResolution[resolution] = ticks(v, `"price.by_resolution.${resolution}"`);
  }
  return {
    usdTicksPerSecond: ticks(raw.usd_ticks_per_second, '"price.usd_ticks_per_second"'),
    byResolution,
    soundUsdTicksPerSecond:
      raw.sound_usd_ticks_per_second === undefined
        ? 0
        : ticks(raw.sound_usd_ticks_per_second, '"price.sound_usd_ticks_per_second"'),
    batchRatioPpm: ratio(raw.batch_ratio, 500_000, '"price.batch_ratio"'),
    priorityRatioPpm: ratio(raw.priority_ratio, 1_500_000, '"price.priority_ratio"'),
  };
}

function parseDurations(value: unknown): number[] | undefined {
  if (Array.isArray(value) && value.length > 0 && value.every((d) => Number.isInteger(d) && d >= 1 && d <= 60)) {
    return [...value].sort((a, b) => a - b);
  }
  const range = value as { min?: unknown; max?: unknown } | undefined;
  if (Number.isInteger(range?.min) && Number.isInteger(range?.max)) {
    const min = range!.min as number;
    const max = range!.max as number;
    if (min >= 1 && max <= 60 && min <= max) return Array.from({ length: max - min + 1 }, (_, i) => min + i);
  }
  return undefined;
}
