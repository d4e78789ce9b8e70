/**
 * How the relay speaks each API family as a client: request bodies, paths, and a reading of every
 * status answer into one vocabulary. Upstreams spell states differently (new-api alone has
 * `IN_PROGRESS`, `in_progress`, `completed`, `succeeded`…), so words are normalised first and
 * anything unrecognised is `unknown`, never guessed.
 */
import type { RelayChannelConfig, RelayDialect } from './relay-config.ts';

export type UpstreamPhase = 'pending' | 'succeeded' | 'failed' | 'expired' | 'unknown';

export interface UpstreamState {
  phase: UpstreamPhase;
  /** 0..1 when the upstream says. */
  progress?: number;
  /** Family A: where the finished video is (absolute, may expire). */
  videoUrl?: string;
  errorCode?: string;
  /** The upstream's own words on a failure (new-api `fail_reason`, xAI `error.message`), unfiltered: relayFailures cleans it. */
  reason?: string;
  /** xAI: finished, but the output was withheld by moderation (`respect_moderation: false`, no URL). */
  moderated?: boolean;
  /** What the upstream says the task cost, in USD ticks (10⁻¹⁰ USD, as our ledger): xAI `usage.cost_in_usd_ticks`. */
  costUsdTicks?: number;
}

export interface SubmitPayload {
  upstreamModel: string;
  prompt: string;
  duration: number;
  ratio: string;
  /** Data URIs, first frame first. */
  images: string[];
  seed?: number;
  /** The output size our catalog entry asks for; the upstream is told, so it renders what we verify. */
  width: number;
  height: number;
}

/** `720p` for 1280×720 and 720×1280: the short side, as xAI's `resolution` names it. */
export function resolutionOf(width: number, height: number): string {
  return `${Math.min(width, height)}p`;
}

export interface RelayDialectSpec {
  submitPath: string;
  listPath: string;
  submitBody(p: SubmitPayload, channel: RelayChannelConfig): Record<string, unknown>;
  /** The upstream's id in a create answer or a listing item. */
  idOf(body: unknown): string | undefined;
  pollPath(id: string): string;
  cancelPath(id: string): string;
  state(httpStatus: number, body: unknown): UpstreamState;
}

const WORDS: Record<string, UpstreamPhase> = {
  queued: 'pending', pending: 'pending', submitted: 'pending', not_start: 'pending', not_started: 'pending', in_queue: 'pending',
  waiting: 'pending', scheduled: 'pending', in_progress: 'pending', processing: 'pending', running: 'pending', started: 'pending',
  generating: 'pending',
  success: 'succeeded', succeeded: 'succeeded', successful: 'succeeded', completed: 'succeeded', complete: 'succeeded', done: 'succeeded', finished: 'succeeded',
  failure: 'failed', failed: 'failed', fail: 'failed', error: 'failed', cancelled: 'failed', canceled: 'failed', rejected: 'failed',
  expired: 'expired',
};

export function phaseOf(status: unknown): UpstreamPhase {
  if (typeof status !== 'string') return 'unknown';
  return WORDS[status.trim().toLowerCase().replace(/[\s-]+/g, '_')] ?? 'unknown';
}

/** Percent as a number or "45%"; 0..1, or undefined when absent or unreadable. */
function progressOf(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number.parseFloat(value) : NaN;
  return Number.isFinite(n) ? Math.max(0, Math.min(1, n / 100)) : undefined;
}

/** new-api wraps some answers as `{code, message, data: {…}}`; the task is the inner object. */
function taskOf(body: unknown): Record<string, unknown> | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const b = body as Record<string, unknown>;
  const inner = b.data;
  if (inner && typeof inner === 'object' && !Array.isArray(inner) && ('status' in inner || 'task_id' in inner)) return inner as Record<string, unknown>;
  return b;
}

function errorCodeOf(task: Record<string, unknown>): string | undefined {
  const e = task.error as { code?: unknown } | undefined;
  return typeof e?.code === 'string' ? e.code : undefined;
}

function reasonOf(task: Record<string, unknown>): string | undefined {
  const e = task.error as { message?: unknown } | undefined;
  return stringField(task, 'fail_reason') ?? (typeof e?.message === 'string' && e.message ? e.message : undefined);
}

function costOf(task: Record<string, unknown>): number | undefined {
  const ticks = (task.usage as { cost_in_usd_ticks?: unknown } | undefined)?.cost_in_usd_ticks;
  const n = typeof ticks === 'string' ? Number(ticks) : ticks;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

function stringField(task: Record<string, unknown> | undefined, ...names: string[]): string | undefined {
  for (const name of names) {
    const v = task?.[name];
    if (typeof v === 'string' && v) return v;
  }
  return undefined;
}

const enc = encodeURIComponent;

const familyA: RelayDialectSpec = {
  submitPath: '/v1/videos/generations',
  listPath: '/v1/videos',
  // xAI (xai-sdk-python GenerateVideoRequest): model, prompt, image.url, duration, aspect_ratio,
  // resolution ("480p"/"720p", below 720p when absent). It has no seed; vidgen takes no resolution.
  submitBody: (p, channel) => ({
    ...channel.extraBody,
    model: p.upstreamModel, prompt: p.prompt, duration: p.duration, aspect_ratio: p.ratio,
    ...(channel.upstream === 'vidgen' ? {} : { resolution: resolutionOf(p.width, p.height) }),
    ...(p.images.length > 0 ? { image: { url: p.images[0] } } : {}),
    ...(p.seed !== undefined ? { seed: p.seed } : {}),
  }),
  idOf: (body) => stringField(taskOf(body), 'request_id', 'id'),
  pollPath: (id) => `/v1/videos/${enc(id)}`,
  cancelPath: (id) => `/v1/videos/${enc(id)}/cancel`,
  state(httpStatus, body) {
    const task = taskOf(body) ?? {};
    // xAI answers 202 for as long as the task is not finished, whatever the body says.
    const phase = httpStatus === 202 ? 'pending' : phaseOf(task.status);
    const video = task.video as { url?: unknown; respect_moderation?: unknown } | undefined;
    const videoUrl = typeof video?.url === 'string' && video.url ? video.url : stringField(task, 'video_url');
    // xAI finishes a moderated video as `done` without a URL: a verdict, not a state to wait out.
    if (phase === 'succeeded' && !videoUrl && video?.respect_moderation === false) return { phase: 'failed', moderated: true, costUsdTicks: costOf(task) };
    if (phase === 'succeeded' && !videoUrl) return { phase: 'unknown' };
    return { phase, progress: progressOf(task.progress), videoUrl, errorCode: errorCodeOf(task), reason: reasonOf(task), costUsdTicks: costOf(task) };
  },
};

const familyB: RelayDialectSpec = {
  submitPath: '/v1/video/generations',
  listPath: '/v1/video/generations',
  // new-api reads TaskSubmitReq (relay/common/relay_info.go): prompt, model, mode, image, images,
  // size, duration, seconds, input_reference, metadata; no `ratio`, so the shape travels as `size`
  // and the length as both `duration` and `seconds`. vidgen reads `ratio` and fixes the length by model.
  submitBody: (p, channel) => ({
    ...channel.extraBody,
    model: p.upstreamModel, prompt: p.prompt,
    ...(channel.upstream === 'vidgen' ? { ratio: p.ratio } : { size: `${p.width}x${p.height}`, duration: p.duration, seconds: String(p.duration) }),
    ...(channel.sendRatio && channel.upstream !== 'vidgen' ? { ratio: p.ratio } : {}),
    ...(p.images.length === 1 ? { image: p.images[0] } : p.images.length > 1 ? { images: p.images } : {}),
    ...(p.seed !== undefined ? { seed: p.seed } : {}),
  }),
  idOf: (body) => stringField(taskOf(body), 'task_id', 'id'),
  pollPath: (id) => `/v1/video/generations/${enc(id)}`,
  cancelPath: (id) => `/v1/video/generations/${enc(id)}/cancel`,
  state(_httpStatus, body) {
    const task = taskOf(body) ?? {};
    let phase = phaseOf(task.status);
    // vidgen keeps SUCCESS after retention and says so with `expired: true`.
    if (phase === 'succeeded' && task.expired === true) phase = 'expired';
    // new-api's `result_url` is its provider's link (or its own content proxy): a fallback when the proxy fails.
    const videoUrl = stringField(task, 'result_url', 'url');
    return { phase, progress: progressOf(task.progress), videoUrl, errorCode: errorCodeOf(task), reason: reasonOf(task) };
  },
};

export const RELAY_DIALECTS: Record<RelayDialect, RelayDialectSpec> = { A: familyA, B: familyB };

/** Family B's video is at the content endpoint of the channel, fetched with the key (spec §4.7). */
export function familyBContentPath(id: string): string {
  return `/v1/videos/${enc(id)}/content`;
}
