/**
 * What a relay dialect is (paths, bodies, a reading of every status answer into one vocabulary) and
 * the readings they share. Upstreams spell states differently (new-api alone has `IN_PROGRESS`,
 * `in_progress`, `completed`, `succeeded`…), so words are normalised first and anything
 * unrecognised is `unknown`, never guessed.
 */
import type { TaskKind } from '../../domain/task.ts';
import type { RelayAuthScheme, RelayChannelConfig } from './relay-config.ts';

export type UpstreamPhase = 'pending' | 'succeeded' | 'failed' | 'expired' | 'unknown';

export interface UpstreamState {
  phase: UpstreamPhase;
  /** 0..1 when the upstream says. */
  progress?: number;
  /** Family A: where the finished video is (absolute, may expire). */
  videoUrl?: string;
  errorCode?: string;
  /**
   * The upstream's own words on a failure (new-api `fail_reason`, xAI `error.message`), unfiltered: relayFailures
   * cleans it.
   */
  reason?: string;
  /** xAI: finished, but the output was withheld by moderation (`respect_moderation: false`, no URL). */
  moderated?: boolean;
  /** What the upstream says the task cost, in USD ticks (10⁻¹⁰ USD, as our ledger): xAI `usage.cost_in_usd_ticks`. */
  costUsdTicks?: number;
  /**
   * Usage figures the upstream reports (Replicate `metrics.predict_time`, fal `metrics.inference_time`), in seconds.
   */
  metrics?: Record<string, number>;
}

export interface SubmitPayload {
  /** Edits and extensions go only to channels that offer them (channelKinds in relay-config.ts). */
  kind: TaskKind;
  upstreamModel: string;
  prompt: string;
  /** Seconds: of the video (generate, edit) or added after the input (extend). */
  duration: number;
  ratio: string;
  /** The first frame as a data URI (at most one). */
  images: string[];
  /** The other inputs, each as a data URI (images PNG or JPEG, sound WAV/MP3/AAC/M4A, video MP4). */
  lastFrame?: string;
  keyframes?: Array<{ image: string; atSeconds: number }>;
  referenceImages?: string[];
  referenceAudios?: string[];
  referenceVideos?: string[];
  /** Edits and extensions: the input MP4 as `data:video/mp4;base64,…`. */
  video?: string;
  seed?: number;
  /** Sound asked of the upstream (`generate_audio`); absent for tasks from before sound existed. */
  audio?: boolean;
  /** The output size our catalog entry asks for; the upstream is told, so it renders what we verify. */
  width: number;
  height: number;
  /** The output's frame rate (vLLM-Omni and SGLang count frames as seconds × fps). */
  fps?: number;
}

/** `720p` for 1280×720 and 720×1280: the short side, as xAI's `resolution` names it. */
export function resolutionOf(width: number, height: number): string {
  return `${Math.min(width, height)}p`;
}

export interface RelayDialectSpec {
  authScheme: RelayAuthScheme;
  /** Where a create goes; fal and Replicate put the upstream model in the path. */
  submitPath(p: SubmitPayload): string;
  /** The listing that answers `?idempotency_key=` (vidgen); absent where there is none. */
  listPath?: string;
  submitBody(p: SubmitPayload, channel: RelayChannelConfig): Record<string, unknown>;
  /** The upstream's id in a create answer or a listing item. */
  idOf(body: unknown): string | undefined;
  /** `model` is the upstream model id (fal's status path names the app). */
  pollPath(id: string, model: string): string;
  cancel?: { method: 'POST' | 'PUT' | 'DELETE'; path(id: string, model: string): string };
  /** Where the finished video is fetched with the key (family B, OpenAI shape); absent, the state's `videoUrl`. */
  contentPath?(id: string): string;
  /** Gemini: the result links on the channel's own origin are fetched with the key. */
  keyOnLinks?: boolean;
  /** How a create is encoded (the OpenAI shape: multipart where the server takes only that, or a file goes along). */
  submitEncoding?(p: SubmitPayload, channel: RelayChannelConfig): 'json' | 'multipart';
  /** fal: the output is read from its own endpoint once the status says COMPLETED. */
  result?: { path(id: string, model: string): string; read(httpStatus: number, body: unknown): UpstreamState };
  state(httpStatus: number, body: unknown): UpstreamState;
}

const WORDS: Record<string, UpstreamPhase> = {
  queued: 'pending',
  pending: 'pending',
  submitted: 'pending',
  not_start: 'pending',
  not_started: 'pending',
  in_queue: 'pending',
  waiting: 'pending',
  scheduled: 'pending',
  in_progress: 'pending',
  processing: 'pending',
  running: 'pending',
  started: 'pending',
  generating: 'pending',
  starting: 'pending',
  success: 'succeeded',
  succeeded: 'succeeded',
  successful: 'succeeded',
  completed: 'succeeded',
  complete: 'succeeded',
  done: 'succeeded',
  finished: 'succeeded',
  failure: 'failed',
  failed: 'failed',
  fail: 'failed',
  error: 'failed',
  cancelled: 'failed',
  canceled: 'failed',
  rejected: 'failed',
  expired: 'expired',
};

export function phaseOf(status: unknown): UpstreamPhase {
  if (typeof status !== 'string') return 'unknown';
  return (
    WORDS[
      status
        .trim()
        .toLowerCase()
        .replace(/[\s-]+/g, '_')
    ] ?? 'unknown'
  );
}

/** Percent as a number or "45%"; 0..1, or undefined when absent or unreadable. */
export function progressOf(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number.parseFloat(value) : NaN;
  return Number.isFinite(n) ? Math.max(0, Math.min(1, n / 100)) : undefined;
}

/** new-api wraps some answers as `{code, message, data: {…}}`; the task is the inner object. */
export function taskOf(body: unknown): Record<string, unknown> | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const b = body as Record<string, unknown>;
  const inner = b.data;
  if (inner && typeof inner === 'object' && !Array.isArray(inner) && ('status' in inner || 'task_id' in inner))
    return inner as Record<string, unknown>;
  return b;
}

export function errorCodeOf(task: Record<string, unknown>): string | undefined {
  const e = task.error as { code?: unknown } | undefined;
  return typeof e?.code === 'string' ? e.code : undefined;
}

export function reasonOf(task: Record<string, unknown>): string | undefined {
  const e = task.error as { message?: unknown } | undefined;
  return stringField(task, 'fail_reason') ?? (typeof e?.message === 'string' && e.message ? e.message : undefined);
}

export function costOf(task: Record<string, unknown>): number | undefined {
  const ticks = (task.usage as { cost_in_usd_ticks?: unknown } | undefined)?.cost_in_usd_ticks;
  const n = typeof ticks === 'string' ? Number(ticks) : ticks;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

export function stringField(task: Record<string, unknown> | undefined, ...names: string[]): string | undefined {
  for (const name of names) {
    const v = task?.[name];
    if (typeof v === 'string' && v) return v;
  }
  return undefined;
}

export const enc = encodeURIComponent;
