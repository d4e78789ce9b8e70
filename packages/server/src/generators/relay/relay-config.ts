/**
 * The relay backend's config: one entry of the backends file (docs/relays.md). Every mistake stops
 * the service at start with a message naming the field; a missing key variable is named, never
 * its value. The key itself is resolved here, so nothing later needs the environment.
 */
import { createHash } from 'node:crypto';
import { ASPECT_RATIOS } from '@vidgen/protocol';
import { unknownPlaceholders } from './input-placeholders.ts';
import { RelayApiKey } from './relay-api-key.ts';
import { DEFAULT_BREAKER, type BreakerSettings, type ChannelLimits } from './channel-health.ts';
import { parseCancelCharge, type CancelCharge } from '../../catalog/cancel-charge.ts';
import type { ModelInputs } from '../../domain/task-inputs.ts';
import { defaultChannelInputs, parseChannelInputs } from './channel-inputs.ts';

/**
 * Family A (xAI style), family B (new-api style), the fal queue API, Replicate predictions, the
 * OpenAI Videos shape (vLLM-Omni, SGLang Diffusion, LiteLLM, Dynamo, Unsloth) and Gemini API Veo.
 */
export type RelayDialect = 'A' | 'B' | 'fal' | 'replicate' | 'openai' | 'veo';
export const RELAY_DIALECT_NAMES: readonly RelayDialect[] = ['A', 'B', 'fal', 'replicate', 'openai', 'veo'];
/**
 * What actually answers at the channel's URL. The dialect fixes paths and shapes; the kind fixes what
 * that service really does beyond them (which fields it reads, whether it has a listing, cancel,
 * long-polls, and what its error answers prove), so the defaults are what that upstream offers.
 */
export type RelayUpstreamKind =
  | 'xai'
  | 'new-api'
  | 'vidgen'
  | 'fal'
  | 'replicate'
  | 'openai'
  | 'vllm-omni'
  | 'sglang'
  | 'gemini';
/** The kinds that speak each dialect; the first is the default. */
const KINDS_OF: Record<RelayDialect, RelayUpstreamKind[]> = {
  A: ['xai', 'vidgen'],
  B: ['new-api', 'vidgen'],
  fal: ['fal'],
  replicate: ['replicate'],
  openai: ['openai', 'vllm-omni', 'sglang', 'vidgen'],
  veo: ['gemini'],
};

/** How the key travels: `Authorization: Bearer …`, fal's `Authorization: Key …`, or Google's `x-goog-api-key`. */
export type RelayAuthScheme = 'Bearer' | 'Key' | 'x-goog-api-key';

export interface RelayChannelConfig {
  /** Shown in logs; never the URL. */
  name: string;
  /**
   * Told of every call made to the channel (its latency and whether it looked healthy): set by the
   * relay generator to feed channel health, never read from the backends file.
   */
  observe?: (latencyMs: number, ok: boolean) => void;
  /** Stable identity kept in checkpoints: a hash of dialect and base URL, so reordering the file is safe. */
  id: string;
  dialect: RelayDialect;
  upstream: RelayUpstreamKind;
  /** Normalised: no trailing slash, no `/v1`. */
  baseUrl: string;
  apiKey: RelayApiKey;
  /** fal sends its key as `Key …`, Gemini as `x-goog-api-key`; everyone else as `Bearer …`. */
  authScheme: RelayAuthScheme;
  /** Our model id → the upstream's model id. */
  models: Record<string, string>;
  aspectRatios?: string[];
  durations?: number[];
  /**
   * Higher is tried first; among equal priorities, channels are picked at random in proportion to their weights (stable
   * per task).
   */
  priority: number;
  weight: number;
  limits: ChannelLimits;
  /** `?wait=` asked of each poll (0 = never); an upstream that ignores it is detected and polled normally. */
  longPollSeconds: number;
  pollIntervalMs: number;
  /** Declared support for replaying a create by its Idempotency-Key (also learned from answers). */
  replaysIdempotencyKey: boolean;
  /** The listing answers `?idempotency_key=` (vidgen upstreams do). */
  lookupByIdempotencyKey: boolean;
  cancel: boolean;
  /** What a customer pays for a cancel this channel cannot pass on (`cancel_charge`; default nothing). */
  cancelCharge: CancelCharge;
  /** `upstream_usd_ticks_per_second`: what the channel bills per output second, for renders it does not report. */
  upstreamUsdTicksPerSecond?: number;
  sendSeed: boolean;
  /** Family B upstreams: also send `ratio` (resellers whose providers read it); new-api itself reads `size`. */
  sendRatio: boolean;
  /** Merged into every create body (an upstream model's own options, e.g. new-api `metadata`). */
  extraBody: Record<string, unknown>;
  /**
   * One create call: a synchronous upstream (new-api waits for its provider) needs long enough never to orphan an
   * accepted task.
   */
  submitTimeoutMs?: number;
  /**
   * fal and Replicate: the model's input, with `{{prompt}}`, `{{image}}`, `{{duration}}`, `{{ratio}}`,
   * `{{seed}}`, `{{width}}`, `{{height}}`, `{{resolution}}`, `{{size}}` filled in (relay-input-template.ts).
   */
  input?: Record<string, unknown>;
  /**
   * OpenAI shape: sides the server renders in multiples of (a model's patch); other sizes are asked rounded up, then
   * cropped.
   */
  sizeMultiple?: number;
  /** OpenAI shape: `always` (vLLM-Omni reads forms only), `files` (multipart only when a file goes along), `never`. */
  multipart: 'always' | 'files' | 'never';
  /** OpenAI shape: the server offers `/v1/videos/edits` and `/v1/videos/extensions` for an uploaded video. */
  edits: boolean;
  /** What the channel takes (channel-inputs.ts): a task goes only to a channel that takes all of its inputs. */
  inputs: ModelInputs;
}

export interface RelayBackendConfig {
  /** In the order they are tried. */
  channels: RelayChannelConfig[];
  /** How long one attempt follows an upstream task before giving the task back for a later attempt. */
  timeoutMs: number;
  requestTimeoutMs: number;
  downloadTimeoutMs: number;
  maxVideoBytes: number;
  /** Tasks this backend may follow at once (worker slots): following is cheap, rendering is upstream. */
  slots: number;
  /** The circuit breaker of every channel of this backend. */
  breaker: BreakerSettings;
  /** The engine's hard limit per attempt, when the operator sets one (`deadline_seconds`); see relay-backends.ts. */
  deadlineMs?: number;
}

type Raw = Record<string, unknown>;
type Fail = (what: string) => never;

const BACKEND_FIELDS = [
  'type',
  'channels',
  'timeout_seconds',
  'request_timeout_seconds',
  'download_timeout_seconds',
  'max_video_mb',
  'slots',
  'health',
  'deadline_seconds',
];
const HEALTH_FIELDS = ['failures', 'window_seconds', 'cooldown_seconds', 'probe_seconds'];
const CHANNEL_FIELDS = [
  'name',
  'dialect',
  'base_url',
  'api_key_env',
  'models',
  'aspect_ratios',
  'durations',
  'priority',
  'long_poll_seconds',
  'poll_interval_seconds',
  'replays_idempotency_key',
  'lookup_by_idempotency_key',
  'cancel',
  'send_seed',
  'upstream',
  'send_ratio',
  'extra_body',
  'submit_timeout_seconds',
  'input',
  'weight',
  'max_concurrent',
  'max_rpm',
  'size_multiple',
  'multipart',
  'edits',
  'cancel_charge',
  'upstream_usd_ticks_per_second',
  'inputs',
];
/** Spec §4.2 and §4.6: about 4 s for family A, about 15 s for family B. */
const DEFAULT_POLL_SECONDS: Record<RelayDialect, number> = { A: 4, B: 15, fal: 3, replicate: 3, openai: 5, veo: 10 };
const MiB = 1024 * 1024;

/**
 * What each kind of upstream really offers (docs/relays.md §6). Neither xAI nor new-api lists tasks
 * by anything the client sent, honours Idempotency-Key, cancels or holds `?wait=`; vidgen does all
 * but replaying by default. Submit timeouts: new-api answers only after its provider accepted.
 */
const KIND_DEFAULTS: Record<
  RelayUpstreamKind,
  { lookup: boolean; cancel: boolean; longPoll: number; submitSeconds?: number }
> = {
  xai: { lookup: false, cancel: false, longPoll: 0, submitSeconds: 120 },
  'new-api': { lookup: false, cancel: false, longPoll: 0, submitSeconds: 300 },
  vidgen: { lookup: true, cancel: true, longPoll: 25 },
  // Neither has a lookup by anything the client sent; both cancel (fal PUT …/cancel, Replicate POST …/cancel).
  fal: { lookup: false, cancel: true, longPoll: 0, submitSeconds: 60 },
  replicate: { lookup: false, cancel: true, longPoll: 0, submitSeconds: 60 },
  // The OpenAI shape lists by cursor only. Only vLLM-Omni's DELETE aborts a running job; SGLang's
  // only forgets it (its GPU work goes on) and OpenAI's deletes finished videos only.
  openai: { lookup: false, cancel: false, longPoll: 0, submitSeconds: 120 },
  'vllm-omni': { lookup: false, cancel: true, longPoll: 0, submitSeconds: 120 },
  sglang: { lookup: false, cancel: false, longPoll: 0, submitSeconds: 120 },
  // Gemini's operations have no lookup by anything we sent and no cancel for Veo.
  gemini: { lookup: false, cancel: false, longPoll: 0, submitSeconds: 120 },
};

export function parseRelayBackend(
  raw: unknown,
  env: Record<string, string | undefined>,
  where = 'relay backend',
): RelayBackendConfig {
  const fail: Fail = (what) => {
    throw new Error(`${where}: ${what}`);
  };
  const b = object(raw, fail, 'must be a JSON object');
  if (b.type !== undefined && b.type !== 'relay') fail('"type" must be "relay"');
  unknownFields(b, BACKEND_FIELDS, fail);
  if (!Array.isArray(b.channels) || b.channels.length === 0) fail('"channels" must be a non-empty list');
  const channels = (b.channels as unknown[]).map((c, i) =>
    parseChannel(c, i, env, (what) => fail(`channels[${i}]: ${what}`)),
  );
  const ids = new Set<string>();
  for (const c of channels) {
    if (ids.has(c.id)) fail(`channel "${c.name}" repeats the dialect and base_url of another channel`);
    ids.add(c.id);
  }
  return {
    // A stable sort: equal priorities keep the order of the file.
    channels: channels
      .map((c, i) => ({ c, i }))
      .sort((x, y) => y.c.priority - x.c.priority || x.i - y.i)
      .map(({ c }) => c),
    timeoutMs: positive(b.timeout_seconds, 1800, 'timeout_seconds', fail) * 1000,
    requestTimeoutMs: positive(b.request_timeout_seconds, 30, 'request_timeout_seconds', fail) * 1000,
    downloadTimeoutMs: positive(b.download_timeout_seconds, 300, 'download_timeout_seconds', fail) * 1000,
    maxVideoBytes: positive(b.max_video_mb, 512, 'max_video_mb', fail) * MiB,
    slots: Math.floor(positive(b.slots, 16, 'slots', fail)),
    breaker: breaker(b.health, fail),
    ...(b.deadline_seconds !== undefined
      ? { deadlineMs: positive(b.deadline_seconds, 0, 'deadline_seconds', fail) * 1000 }
      : {}),
  };
}

function parseChannel(
  raw: unknown,
  index: number,
  env: Record<string, string | undefined>,
  fail: Fail,
): RelayChannelConfig {
  const c = object(raw, fail, 'must be an object');
  unknownFields(c, CHANNEL_FIELDS, fail);
  const dialect = RELAY_DIALECT_NAMES.includes(c.dialect as RelayDialect)
    ? (c.dialect as RelayDialect)
    : fail('"dialect" must be "A", "B", "fal", "replicate", "openai" or "veo"');
  const baseUrl = normaliseBaseUrl(c.base_url, fail);
  const keyEnv =
    typeof c.api_key_env === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(c.api_key_env)
      ? c.api_key_env
      : fail('"api_key_env" must name an environment variable');
  const key = env[keyEnv];
  if (!key) fail(`the environment variable ${keyEnv} (api_key_env) is not set`);
  const models = object(c.models, fail, '"models" must map our model ids to upstream model ids');
  if (Object.keys(models).length === 0) fail('"models" is empty');
  for (const [ours, theirs] of Object.entries(models))
    if (typeof theirs !== 'string' || !theirs) fail(`"models.${ours}" must be an upstream model id`);
  const kinds = KINDS_OF[dialect];
  const upstream =
    c.upstream === undefined
      ? kinds[0]
      : kinds.includes(c.upstream as RelayUpstreamKind)
        ? (c.upstream as RelayUpstreamKind)
        : fail(`"upstream" must be ${kinds.map((k) => `"${k}"`).join(' or ')} for dialect ${dialect}`);
  const input =
    c.input === undefined
      ? undefined
      : object(c.input, fail, '"input" must be a JSON object (the model\'s input template)');
  if (input && dialect !== 'fal' && dialect !== 'replicate') fail('"input" is for the fal and replicate dialects');
  const unknown = unknownPlaceholders(input);
  if (unknown.length > 0) fail(`"input" names unknown placeholders: ${unknown.map((n) => `{{${n}}}`).join(', ')}`);
  const kind = KIND_DEFAULTS[upstream];
  const extraBody = c.extra_body === undefined ? {} : object(c.extra_body, fail, '"extra_body" must be a JSON object');
  const name =
    c.name === undefined
      ? `${dialect}-${index + 1}`
      : typeof c.name === 'string' && /^[\w.-]{1,64}$/.test(c.name)
        ? c.name
        : fail('"name" must be a short plain name');
  return {
    name,
    id: createHash('sha256').update(`${dialect}\n${baseUrl}`).digest('hex').slice(0, 16),
    dialect,
    upstream,
    baseUrl,
    apiKey: new RelayApiKey(key!),
    authScheme: dialect === 'fal' ? 'Key' : dialect === 'veo' ? 'x-goog-api-key' : 'Bearer',
    models: models as Record<string, string>,
    aspectRatios: ratios(c.aspect_ratios, fail),
    durations: durations(c.durations, fail),
    priority:
      c.priority === undefined
        ? 0
        : Number.isFinite(c.priority)
          ? (c.priority as number)
          : fail('"priority" must be a number'),
    weight: positive(c.weight, 1, 'weight', fail),
    limits: {
      ...(c.max_concurrent !== undefined
        ? { maxConcurrent: Math.floor(positive(c.max_concurrent, 1, 'max_concurrent', fail)) }
        : {}),
      ...(c.max_rpm !== undefined ? { maxRpm: Math.floor(positive(c.max_rpm, 1, 'max_rpm', fail)) } : {}),
    },
    longPollSeconds:
      c.long_poll_seconds === undefined
        ? kind.longPoll
        : Number.isInteger(c.long_poll_seconds) &&
            (c.long_poll_seconds as number) >= 0 &&
            (c.long_poll_seconds as number) <= 60
          ? (c.long_poll_seconds as number)
          : fail('"long_poll_seconds" must be an integer from 0 to 60'),
    pollIntervalMs:
      positive(c.poll_interval_seconds, DEFAULT_POLL_SECONDS[dialect], 'poll_interval_seconds', fail) * 1000,
    replaysIdempotencyKey: bool(c.replays_idempotency_key, false, 'replays_idempotency_key', fail),
    lookupByIdempotencyKey: bool(c.lookup_by_idempotency_key, kind.lookup, 'lookup_by_idempotency_key', fail),
    // vidgen's own OpenAI-shape DELETE removes finished videos only: it is no cancel.
    cancel: bool(c.cancel, kind.cancel && !(dialect === 'openai' && upstream === 'vidgen'), 'cancel', fail),
    cancelCharge: cancelCharge(c.cancel_charge, fail),
    ...(c.upstream_usd_ticks_per_second !== undefined
      ? { upstreamUsdTicksPerSecond: ticks(c.upstream_usd_ticks_per_second, 'upstream_usd_ticks_per_second', fail) }
      : {}),
    sendSeed: bool(c.send_seed, false, 'send_seed', fail),
    sendRatio: bool(c.send_ratio, false, 'send_ratio', fail),
    extraBody,
    submitTimeoutMs:
      c.submit_timeout_seconds !== undefined
        ? positive(c.submit_timeout_seconds, 0, 'submit_timeout_seconds', fail) * 1000
        : kind.submitSeconds !== undefined
          ? kind.submitSeconds * 1000
          : undefined,
    input,
    ...openAiFields(c, dialect, upstream, fail),
    inputs: parseChannelInputs(c.inputs, defaultChannelInputs(dialect, upstream, input), fail),
  };
}

/** The OpenAI shape's own fields; other dialects refuse them. */
function openAiFields(
  c: Raw,
  dialect: RelayDialect,
  upstream: RelayUpstreamKind,
  fail: Fail,
): Pick<RelayChannelConfig, 'sizeMultiple' | 'multipart' | 'edits'> {
  if (dialect !== 'openai' && (c.size_multiple ?? c.multipart ?? c.edits) !== undefined)
    fail('"size_multiple", "multipart" and "edits" are for the openai dialect');
  const multiple = c.size_multiple;
  if (
    multiple !== undefined &&
    !(Number.isInteger(multiple) && (multiple as number) >= 2 && (multiple as number) <= 128)
  )
    fail('"size_multiple" must be an integer from 2 to 128');
  const modes = ['always', 'files', 'never'];
  if (c.multipart !== undefined && !modes.includes(c.multipart as string))
    fail('"multipart" must be "always", "files" or "never"');
  return {
    ...(multiple !== undefined ? { sizeMultiple: multiple as number } : {}),
    multipart:
      (c.multipart as RelayChannelConfig['multipart'] | undefined) ?? (upstream === 'vllm-omni' ? 'always' : 'files'),
    edits: bool(c.edits, false, 'edits', fail),
  };
}

function breaker(value: unknown, fail: Fail): BreakerSettings {
  if (value === undefined) return DEFAULT_BREAKER;
  const h = object(value, fail, '"health" must be an object');
  unknownFields(h, HEALTH_FIELDS, (what) => fail(`health: ${what}`));
  return {
    failures: Math.floor(positive(h.failures, DEFAULT_BREAKER.failures, 'health.failures', fail)),
    windowMs: positive(h.window_seconds, DEFAULT_BREAKER.windowMs / 1000, 'health.window_seconds', fail) * 1000,
    cooldownMs: positive(h.cooldown_seconds, DEFAULT_BREAKER.cooldownMs / 1000, 'health.cooldown_seconds', fail) * 1000,
    probeMs: positive(h.probe_seconds, DEFAULT_BREAKER.probeMs / 1000, 'health.probe_seconds', fail) * 1000,
  };
}

function normaliseBaseUrl(value: unknown, fail: Fail): string {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    return fail('"base_url" must be an http or https URL');
  if (url.username || url.password) fail('"base_url" must not carry credentials (use api_key_env)');
  if (url.search || url.hash) fail('"base_url" must not have a query or fragment');
  // Both "https://host" and "https://host/v1" are common in upstream docs; paths here start at /v1.
  return `${url.origin}${url.pathname.replace(/\/+$/, '').replace(/\/v1(beta)?$/, '')}`;
}

function ratios(value: unknown, fail: Fail): string[] | undefined {
  if (value === undefined) return undefined;
  const known = ASPECT_RATIOS as readonly string[];
  if (!Array.isArray(value) || value.length === 0 || value.some((r) => !known.includes(r)))
    fail(`"aspect_ratios" must be a list of ${known.join(', ')}`);
  return value as string[];
}

function durations(value: unknown, fail: Fail): number[] | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value) && value.length > 0 && value.every((d) => Number.isInteger(d) && d >= 1 && d <= 60))
    return value as number[];
  const r = value as { min?: unknown; max?: unknown };
  if (
    r &&
    Number.isInteger(r.min) &&
    Number.isInteger(r.max) &&
    (r.min as number) >= 1 &&
    (r.min as number) <= (r.max as number)
  ) {
    return Array.from({ length: (r.max as number) - (r.min as number) + 1 }, (_, i) => (r.min as number) + i);
  }
  return fail('"durations" must be a list of seconds or {min, max}');
}

function object(value: unknown, fail: Fail, message: string): Raw {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Raw) : fail(message);
}

function unknownFields(value: Raw, known: string[], fail: Fail): void {
  const extra = Object.keys(value).filter((k) => !known.includes(k));
  if (extra.length > 0) fail(`unknown field${extra.length > 1 ? 's' : ''} ${extra.map((k) => `"${k}"`).join(', ')}`);
}

function positive(value: unknown, fallback: number, name: string, fail: Fail): number {
  if (value === undefined) return fallback;
  return typeof value === 'number' && value > 0 ? value : fail(`"${name}" must be a positive number`);
}

/** `"none"` (the default), `"full"`, or `{"fee_usd_ticks": N}`. */
function cancelCharge(value: unknown, fail: Fail): CancelCharge {
  return value === undefined ? { kind: 'none' } : parseCancelCharge(value, fail);
}

function ticks(value: unknown, name: string, fail: Fail): number {
  return Number.isSafeInteger(value) && (value as number) >= 0
    ? (value as number)
    : fail(`"${name}" must be a whole number of USD ticks, at least 0`);
}

function bool(value: unknown, fallback: boolean, name: string, fail: Fail): boolean {
  if (value === undefined) return fallback;
  return typeof value === 'boolean' ? value : fail(`"${name}" must be true or false`);
}
