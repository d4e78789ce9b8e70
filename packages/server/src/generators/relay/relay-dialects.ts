/**
 * How the relay speaks each API family as a client: request bodies, paths, and a reading of every
 * status answer into one vocabulary. Upstreams spell states differently (new-api alone has
 * `IN_PROGRESS`, `in_progress`, `completed`, `succeeded`…), so words are normalised first and
 * anything unrecognised is `unknown`, never guessed.
 */
import type { RelayDialect } from './relay-config.ts';

export type UpstreamPhase = 'pending' | 'succeeded' | 'failed' | 'expired' | 'unknown';

export interface UpstreamState {
  phase: UpstreamPhase;
  /** 0..1 when the upstream says. */
  progress?: number;
  /** Family A: where the finished video is (absolute, may expire). */
  videoUrl?: string;
  errorCode?: string;
}

export interface SubmitPayload {
  upstreamModel: string;
  prompt: string;
  duration: number;
  ratio: string;
  /** Data URIs, first frame first. */
  images: string[];
  seed?: number;
}

export interface RelayDialectSpec {
  submitPath: string;
  listPath: string;
  submitBody(p: SubmitPayload): Record<string, unknown>;
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
  submitBody: (p) => ({
    model: p.upstreamModel, prompt: p.prompt, duration: p.duration, aspect_ratio: p.ratio,
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
    const video = task.video as { url?: unknown } | undefined;
    const videoUrl = typeof video?.url === 'string' && video.url ? video.url : stringField(task, 'video_url');
    if (phase === 'succeeded' && !videoUrl) return { phase: 'unknown' };
    return { phase, progress: progressOf(task.progress), videoUrl, errorCode: errorCodeOf(task) };
  },
};

const familyB: RelayDialectSpec = {
  submitPath: '/v1/video/generations',
  listPath: '/v1/video/generations',
  submitBody: (p) => ({
    model: p.upstreamModel, prompt: p.prompt, ratio: p.ratio,
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
    return { phase, progress: progressOf(task.progress), errorCode: errorCodeOf(task) };
  },
};

export const RELAY_DIALECTS: Record<RelayDialect, RelayDialectSpec> = { A: familyA, B: familyB };

/** Family B's video is at the content endpoint of the channel, fetched with the key (spec §4.7). */
export function familyBContentPath(id: string): string {
  return `/v1/videos/${enc(id)}/content`;
}
