import {
  ErrorBody,
  OpenAiVideo as OpenAiVideoSchema,
  OpenAiVideoClaim,
  OpenAiVideoCreateBody,
  OpenAiVideoEditBody,
  OpenAiVideoExtendBody,
  type OpenAiImageReference,
  type OpenAiVideo,
  type OpenAiVideoStatus,
} from '@vidgen/protocol';
import type { VideoInput } from '../../engine/task-service.ts';
import { outputDimensions, outputSeconds, type ServiceTier, type Task, type TaskStatus } from '../../domain/task.ts';
import { InvalidRequest } from '../../errors.ts';
import { callbackFieldName, callbackUrlOf } from './callback-url.ts';
import { DELIVERY_FIELD_NAMES, deliveryOf, storageAnswer } from './output-target.ts';
import { hasAudio, openAiErrorBody, submitRoute, type Dialect, type WireContext, type WireIds } from './dialect.ts';
import { claimsOpenAiVideos } from './openai-videos-claims.ts';
import { registerOpenAiVideoRoutes } from './openai-videos-routes.ts';
import { inputFieldName, inputRequests, type WireInputs } from './wire-inputs.ts';

/**
 * The OpenAI Videos API (openai-node `src/resources/videos.ts`, openai-python
 * `src/openai/resources/videos/videos.py`): `video_` ids, a `Video` object for every answer,
 * failures as `status: "failed"` with `error`, and `openai-poll-after-ms` on pending answers.
 * It shares `/v1/videos` with family A: ids, the listing's query and create bodies tell them
 * apart (docs/openai-videos.md).
 */

const STATUS: Record<TaskStatus, OpenAiVideoStatus> = {
  queued: 'queued',
  running: 'in_progress',
  succeeded: 'completed',
  failed: 'failed',
  canceled: 'failed',
  expired: 'completed',
};

/** What the SDKs send when `model` is left out. */
export const DEFAULT_OPENAI_VIDEO_MODEL = 'sora-2';
/** How long a client should wait between polls of a pending video. */
const POLL_AFTER_MS = 1000;

const FIELD_NAMES: Record<string, string> = {
  audio: 'generate_audio',
  aspectRatio: 'size',
  resolution: 'size',
  duration: 'seconds',
  images: 'input_reference',
  'video.taskId': 'video.id',
  serviceTier: 'service_tier',
  'video.fileId': 'video.id',
  'video.url': 'video',
  ...DELIVERY_FIELD_NAMES,
};

/** `video_` and the task's UUID as 32 hex digits, the length OpenAI's own ids have. */
export const openAiVideoIds: WireIds = {
  fromTask: (taskId) => `video_${taskId.replaceAll('-', '')}`,
  toTask(wireId) {
    const hex = /^video_([0-9a-f]{32})$/.exec(wireId)?.[1];
    if (hex === undefined) return undefined;
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  },
};

const toAnswer = (task: Task) => toOpenAiVideo(task);

export const openAiVideos: Dialect = {
  family: 'O',
  idField: 'video_id',
  submits: [
    submitRoute({
      path: '/v1/videos',
      kind: 'generate',
      body: OpenAiVideoCreateBody,
      answer: OpenAiVideoSchema,
      toAnswer,
      multipart: true,
      operationId: 'createVideo',
      summary: 'OpenAI Videos: generate a video from a prompt (and a first frame)',
      description: 'JSON or multipart (`input_reference` as a file part, or `input_reference[image_url]`).',
      toInput: (body) => ({
        kind: 'generate',
        model: body.model ?? DEFAULT_OPENAI_VIDEO_MODEL,
        prompt: body.prompt,
        inputs: inputRequests(openAiInputs, body),
        duration: body.seconds === undefined ? undefined : secondsOf(body.seconds),
        ...(body.size === undefined ? {} : sizeOf(body.size)),
        ...extras(body),
      }),
    }),
    submitRoute({
      path: '/v1/videos/edits',
      kind: 'edit',
      body: OpenAiVideoEditBody,
      answer: OpenAiVideoSchema,
      toAnswer,
      claim: OpenAiVideoClaim,
      multipart: true,
      operationId: 'editVideo',
      summary: 'OpenAI Videos: edit a video (a body with `video.id`)',
      toInput: (body) => ({
        kind: 'edit',
        model: body.model ?? DEFAULT_OPENAI_VIDEO_MODEL,
        prompt: body.prompt,
        inputs: [],
        video: sourceVideo(body.video),
        ...extras(body),
      }),
    }),
    submitRoute({
      path: '/v1/videos/extensions',
      kind: 'extend',
      body: OpenAiVideoExtendBody,
      answer: OpenAiVideoSchema,
      toAnswer,
      claim: OpenAiVideoClaim,
      multipart: true,
      operationId: 'extendVideo',
      summary: 'OpenAI Videos: extend a video (a body with `video.id`)',
      toInput: (body) => ({
        kind: 'extend',
        model: body.model ?? DEFAULT_OPENAI_VIDEO_MODEL,
        prompt: body.prompt,
        inputs: [],
        video: sourceVideo(body.video),
        duration: secondsOf(body.seconds),
        ...extras(body),
      }),
    }),
  ],
  paths: { poll: '/v1/videos/:video_id', cancel: '/v1/videos/:video_id/cancel' },
  operations: {
    poll: {
      operationId: 'getVideo',
      summary: 'OpenAI Videos: retrieve a video (`video_…` ids)',
      statusCodes: { 200: 'The video; while queued or in_progress, poll again after `openai-poll-after-ms`' },
    },
    cancel: {
      operationId: 'cancelVideo',
      summary: 'OpenAI Videos: cancel a queued or in-progress video (it ends failed, code canceled; vidgen extension)',
    },
    events: {
      operationId: 'streamVideo',
      summary: 'OpenAI Videos: follow a video (`video_…` ids), each change as a Server-Sent Event (vidgen extension)',
    },
  },
  tag: 'OpenAI Videos',
  schemas: { task: OpenAiVideoSchema, error: ErrorBody },
  statusWords: {
    queued: ['queued'],
    in_progress: ['running'],
    completed: ['succeeded'],
    failed: ['failed', 'canceled'],
  },
  // The OpenAI shape's own words are `seconds` and `size`. A body with `duration` or `aspect_ratio`
  // is OpenRouter's shape (openrouter-videos.ts), claimed before this one is checked.
  foreignFields: { resolution: 'resolution', ratio: 'aspectRatio' },
  fieldName: (field, body) =>
    field === 'callbackUrl'
      ? callbackFieldName(body)
      : (inputFieldName(openAiInputs, field, body) ?? FIELD_NAMES[field] ?? field),
  describeOffer: (error, name, body) => {
    // `size` carries both the aspect ratio and the resolution: say the size sent and the sizes offered.
    const size = (body as { size?: unknown } | null)?.size;
    const { model, frameSizes } = error.offer;
    if (name !== 'size' || typeof size !== 'string' || !frameSizes) return undefined;
    return `\`size\` '${size}' is not offered by model '${model}'; it offers ${frameSizes.join(', ')}.`;
  },
  toWire: (task, ctx) => toOpenAiVideo(task, ctx),
  pollStatus: (task) =>
    task.status === 'queued' || task.status === 'running'
      ? {
          code: 200,
          retryAfterSeconds: POLL_AFTER_MS / 1000,
          headers: { 'openai-poll-after-ms': String(POLL_AFTER_MS) },
        }
      : { code: 200 },
  inFlightRetryAfterSeconds: 1,
  errorBody: openAiErrorBody,
  wireIds: openAiVideoIds,
  owns: (task) => task.family === 'O' && !isDeleted(task),
  claims: claimsOpenAiVideos,
  routes: (app, deps) => registerOpenAiVideoRoutes(app, openAiVideos, deps),
};

/**
 * Deleted, or gone when its retention ended: a succeeded task is then expired, a failed one
 * carries the time it was deleted (store `endNow`).
 */
export function isDeleted(task: Task): boolean {
  return (
    task.status === 'expired' || ((task.status === 'failed' || task.status === 'canceled') && task.expiresAt !== null)
  );
}

const unixSeconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));

export function toOpenAiVideo(task: Task, ctx?: WireContext): OpenAiVideo {
  const done = task.status === 'succeeded';
  const size = outputDimensions(task);
  const source = task.params.video;
  const body: OpenAiVideo = {
    id: openAiVideoIds.fromTask(task.id),
    object: 'video',
    model: task.params.reportedModel ?? task.model,
    status: STATUS[task.status],
    progress: done ? 100 : Math.round(task.progress),
    created_at: Math.floor(task.createdAt / 1000),
    completed_at: done ? unixSeconds(task.finishedAt) : null,
    expires_at: done ? unixSeconds(task.expiresAt) : null,
    prompt: task.params.prompt,
    seconds: String(Math.round(outputSeconds(task))),
    size: size ? `${size.width}x${size.height}` : '',
    // A remix is an edit of an earlier video with a new prompt: every edit of a video names it.
    remixed_from_video_id:
      task.kind === 'edit' && source?.kind === 'task' ? openAiVideoIds.fromTask(source.taskId) : null,
    error: task.error && (task.status === 'failed' || task.status === 'canceled') ? { ...task.error } : null,
  };
  if (task.usage) body.usage = { cost_in_usd_ticks: task.usage.costUsdTicks };
  const storage = storageAnswer(task, ctx);
  return { ...body, ...hasAudio(task), service_tier: task.serviceTier, ...(storage ? { video: storage } : {}) };
}

/** What every submit of this dialect may add: sound, a per-request webhook, a tier, and where the video also goes. */
function extras(
  body: { generate_audio?: boolean | 'true' | 'false'; service_tier?: ServiceTier } & Parameters<
    typeof callbackUrlOf
  >[0] &
    Parameters<typeof deliveryOf>[0],
) {
  const audio = body.generate_audio === undefined ? undefined : String(body.generate_audio) === 'true';
  return { audio, callbackUrl: callbackUrlOf(body), serviceTier: body.service_tier, delivery: deliveryOf(body) };
}

/** `seconds` is text on this wire; whole seconds only. */
function secondsOf(seconds: string | number): number {
  const text = String(seconds);
  if (!/^\d{1,4}$/.test(text))
    throw new InvalidRequest('invalid_value', '`seconds` must be a whole number of seconds, such as "4".', 'seconds');
  return Number(text);
}

/** `WxH` as the engine's words: the ratio in lowest terms and the short side as a resolution. */
export function sizeOf(size: string): { aspectRatio: string; resolution: string } {
  const match = /^([1-9]\d{1,4})x([1-9]\d{1,4})$/.exec(size);
  if (!match)
    throw new InvalidRequest('invalid_value', '`size` must be width x height in pixels, such as "1280x720".', 'size');
  const [width, height] = [Number(match[1]), Number(match[2])];
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  const g = gcd(width, height);
  return { aspectRatio: `${width / g}:${height / g}`, resolution: `${Math.min(width, height)}p` };
}

/** The OpenAI dialect's one input: `input_reference`, the first frame (docs/inputs.md). */
export const openAiInputs: WireInputs<{ input_reference?: OpenAiImageReference | string }> = {
  read: (body) =>
    body.input_reference === undefined
      ? []
      : [
          {
            request: { role: 'first_frame', ...firstFrame(body.input_reference) },
            field: 'input_reference',
            parts: { fileId: 'input_reference.file_id' },
          },
        ],
  lists: { first_frame: 'input_reference' },
};

/** `input_reference`: exactly one of `image_url` or `file_id`; a file part arrives as a data URL. */
function firstFrame(reference: OpenAiImageReference | string): { url?: string; fileId?: string } {
  if (typeof reference === 'string') return { url: reference };
  if ((reference.image_url !== undefined) === (reference.file_id !== undefined)) {
    throw new InvalidRequest(
      'invalid_image',
      '`input_reference` must have exactly one of `image_url` or `file_id`.',
      'input_reference',
    );
  }
  return reference.image_url !== undefined ? { url: reference.image_url } : { fileId: reference.file_id };
}

/** `video.id`: a `video_…` of this account, or an uploaded MP4's `file-…` id. */
function sourceVideo(video: { id: string } | string): VideoInput {
  if (typeof video === 'string')
    throw new InvalidRequest(
      'invalid_video',
      'Upload the video with POST /v1/files and send its id as `video[id]`; a video file part is not taken here.',
      'video',
    );
  const id = video.id;
  const taskId = openAiVideoIds.toTask(id);
  if (taskId !== undefined) return { taskId };
  if (id.startsWith('file-')) return { fileId: id };
  throw new InvalidRequest('invalid_video', '`video.id` must be a `video_…` id or a `file-…` id.', 'video.id');
}
