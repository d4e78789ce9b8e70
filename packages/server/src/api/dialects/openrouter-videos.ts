import {
  ErrorBody,
  OpenRouterVideo as OpenRouterVideoSchema,
  OpenRouterVideoClaim,
  OpenRouterVideoCreateBody,
  type OpenRouterVideo,
  type OpenRouterVideoStatus,
} from '@vidgen/protocol';
import { outputDimensions, outputSeconds, type Task, type TaskStatus } from '../../domain/task.ts';
import { callbackFieldName, callbackUrlOf } from './callback-url.ts';
import { DELIVERY_FIELD_NAMES, deliveryOf, storageAnswer } from './output-target.ts';
import { hasAudio, openAiErrorBody, submitRoute, type Dialect, type WireContext, type WireIds } from './dialect.ts';
import { claimsOpenRouterVideos, sentByOpenRouterProvider } from './openrouter-videos-claims.ts';
import { registerOpenRouterVideoRoutes } from './openrouter-videos-routes.ts';
import { openRouterInputs } from './openrouter-inputs.ts';
import { openRouterShape } from './openrouter-shape.ts';
import { inputFieldName, inputRequests } from './wire-inputs.ts';

/**
 * OpenRouter's video API shape on `POST /v1/videos` (a fourth dialect beside A, B and OpenAI's),
 * as `@openrouter/ai-sdk-provider` 3.1.0 speaks it (`dist/index.js`, `OpenRouterVideoModel`): it
 * posts the create, then polls `GET /videos/{id}` every 2 s until `status` is `completed` (its
 * `unsigned_urls` are downloaded, without a key) or `failed`, `dead`, `cancelled` or `expired`
 * (it raises `error`, a string, which its schema requires to be absent or a string, never null).
 * OpenRouter is a gateway over every provider's models, so this shape serves every model of the
 * catalog. Its tasks answer in it everywhere: polls, listings, streams and webhook events.
 */

const STATUS: Record<TaskStatus, OpenRouterVideoStatus> = {
  queued: 'pending',
  running: 'in_progress',
  succeeded: 'completed',
  failed: 'failed',
  canceled: 'cancelled',
  expired: 'expired',
};

/** 10^10 ticks to the US dollar (docs/economics.md). */
const TICKS_PER_USD = 1e10;
/** The provider polls every 2 s; a client of its own is told the same. */
const POLL_AFTER_SECONDS = 2;

const FIELD_NAMES: Record<string, string> = {
  audio: 'generate_audio',
  duration: 'duration',
  images: 'frame_images',
  serviceTier: 'service_tier',
  ...DELIVERY_FIELD_NAMES,
};

/** `job-` and the task's UUID as 32 hex digits. */
export const openRouterVideoIds: WireIds = {
  fromTask: (taskId) => `job-${taskId.replaceAll('-', '')}`,
  toTask(wireId) {
    const hex = /^job-([0-9a-f]{32})$/.exec(wireId)?.[1];
    if (hex === undefined) return undefined;
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  },
};

export const openRouterVideos: Dialect = {
  family: 'R',
  idField: 'job_id',
  servesEveryModel: true,
  submits: [
    submitRoute({
      path: '/v1/videos',
      kind: 'generate',
      body: OpenRouterVideoCreateBody,
      answer: OpenRouterVideoSchema,
      claim: OpenRouterVideoClaim,
      claimsHeaders: sentByOpenRouterProvider,
      toAnswer: (task) => toOpenRouterVideo(task),
      operationId: 'createVideoOpenRouter',
      summary: "OpenRouter's shape: a body with `duration`, `aspect_ratio`, `frame_images` or `input_references`",
      description:
        "OpenRouter's shape (docs/openai-videos.md): a body with `duration`, `aspect_ratio`, `frame_images` or " +
        '`input_references`, or any body from a User-Agent with `ai-sdk/openrouter`; answered `{id: "job-…", ' +
        'polling_url, status}`.',
      toInput: (body) => ({
        kind: 'generate',
        model: body.model,
        prompt: body.prompt,
        inputs: inputRequests(openRouterInputs, body),
        duration: body.duration,
        ...openRouterShape(body),
        seed: body.seed,
        audio: body.generate_audio,
        callbackUrl: callbackUrlOf(body),
        serviceTier: body.service_tier,
        delivery: deliveryOf(body),
      }),
    }),
  ],
  paths: { poll: '/v1/videos/:job_id', cancel: '/v1/videos/:job_id/cancel' },
  operations: {
    poll: {
      operationId: 'getVideoOpenRouter',
      summary: "OpenRouter's shape: poll a job (`job-…` ids)",
      statusCodes: { 200: 'The job; until `completed`, `failed`, `cancelled` or `expired`, poll again' },
    },
    cancel: {
      operationId: 'cancelVideoOpenRouter',
      summary: "OpenRouter's shape: cancel a pending or in-progress job (it ends cancelled; vidgen extension)",
    },
    events: {
      operationId: 'streamVideoOpenRouter',
      summary: "OpenRouter's shape: follow a job, each change as a Server-Sent Event (vidgen extension)",
    },
  },
  tag: "OpenRouter's shape",
  schemas: { task: OpenRouterVideoSchema, error: ErrorBody },
  statusWords: {
    pending: ['queued'],
    in_progress: ['running'],
    completed: ['succeeded'],
    failed: ['failed'],
    cancelled: ['canceled'],
    expired: ['expired'],
  },
  // Its own words are `duration`, `aspect_ratio`, `size` and `resolution`.
  foreignFields: { seconds: 'duration', ratio: 'aspectRatio' },
  fieldName: (field, body) => {
    if (field === 'callbackUrl') return callbackFieldName(body);
    const sent = (body ?? {}) as { aspect_ratio?: unknown; resolution?: unknown };
    if (field === 'aspectRatio') return sent.aspect_ratio === undefined ? 'size' : 'aspect_ratio';
    if (field === 'resolution') return sent.resolution === undefined ? 'size' : 'resolution';
    return inputFieldName(openRouterInputs, field, body) ?? FIELD_NAMES[field] ?? field;
  },
  toWire: (task, ctx) => toOpenRouterVideo(task, ctx),
  pollStatus: (task) =>
    task.status === 'queued' || task.status === 'running'
      ? { code: 200, retryAfterSeconds: POLL_AFTER_SECONDS }
      : { code: 200 },
  inFlightRetryAfterSeconds: 1,
  errorBody: openAiErrorBody,
  wireIds: openRouterVideoIds,
  owns: (task) => task.family === 'R',
  claims: claimsOpenRouterVideos,
  routes: (app, deps) => registerOpenRouterVideoRoutes(app, openRouterVideos, deps),
};

/**
 * A job as the provider reads it. `ctx` absent (the create's answer): no links, which a job only
 * has once completed. `unsigned_urls` are the content's signed links (no key needed); in a webhook
 * event's frozen body they are the content route's plain URL, fetched with the key.
 */
export function toOpenRouterVideo(task: Task, ctx?: WireContext): OpenRouterVideo {
  const done = task.status === 'succeeded';
  const size = outputDimensions(task);
  const id = openRouterVideoIds.fromTask(task.id);
  const body: OpenRouterVideo = {
    id,
    object: 'video',
    polling_url: `/v1/videos/${id}`,
    status: STATUS[task.status],
    model: task.params.reportedModel ?? task.model,
    progress: done ? 100 : Math.round(task.progress),
    created_at: Math.floor(task.createdAt / 1000),
    duration: outputSeconds(task),
    size: size ? `${size.width}x${size.height}` : '',
  };
  if (done && ctx) body.unsigned_urls = [ctx.signedContentUrl(task)];
  if (task.status === 'failed' || task.status === 'canceled') {
    body.error = task.error?.message ?? (task.status === 'canceled' ? 'The job was cancelled.' : 'The job failed.');
    if (task.error) body.error_code = task.error.code;
  }
  if (task.status === 'expired') body.error = 'The video was deleted when its retention period ended.';
  if (task.usage)
    body.usage = { cost: task.usage.costUsdTicks / TICKS_PER_USD, cost_in_usd_ticks: task.usage.costUsdTicks };
  const storage = storageAnswer(task, ctx);
  return { ...body, ...hasAudio(task), ...(storage ? { video: storage } : {}) };
}
