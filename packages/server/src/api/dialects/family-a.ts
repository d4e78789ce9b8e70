import {
  ErrorBody,
  FamilyACreateBody,
  FamilyACreateResponse,
  FamilyAEditBody,
  FamilyAExtensionBody,
  FamilyATask as FamilyATaskSchema,
  type FamilyAStatus,
  type FamilyATask,
  type FamilyACreateBody as CreateBody,
  type FamilyAVideoInput,
} from '@vidgen/protocol';
import type { VideoInput } from '../../engine/inputs/video-inputs.ts';
import { outputSeconds, type Task, type TaskStatus } from '../../domain/task.ts';
import { InvalidRequest } from '../../errors.ts';
import { callbackFieldName, callbackUrlOf } from './callback-url.ts';
import { DELIVERY_FIELD_NAMES, deliveryOf, storageAnswer } from './output-target.ts';
import { hasAudio, openAiErrorBody, submitRoute, type Dialect, type WireContext } from './dialect.ts';
import {
  inputFieldName,
  inputRequests,
  objectParts,
  oneSource,
  type WireInput,
  type WireInputs,
} from './wire-inputs.ts';

const STATUS: Record<TaskStatus, FamilyAStatus> = {
  queued: 'pending',
  running: 'pending',
  succeeded: 'done',
  failed: 'failed',
  canceled: 'failed',
  expired: 'expired',
};

const FIELD_NAMES: Record<string, string> = {
  aspectRatio: 'aspect_ratio',
  images: 'image',
  'video.fileId': 'video.file_id',
  'video.taskId': 'video.request_id',
  audio: 'generate_audio',
  ...DELIVERY_FIELD_NAMES,
  serviceTier: 'service_tier',
};

const toAnswer = (task: Task) => ({ request_id: task.id });
const answer = FamilyACreateResponse;

/**
 * Family A (xAI "imagine video" style): `request_id`; a pending poll is HTTP 202 with a JSON
 * body; a done task carries an absolute signed link. Cancel is a vidgen extension: the task ends
 * `failed` with error code `canceled`.
 */
export const familyA: Dialect = {
  family: 'A',
  idField: 'request_id',
  submits: [
    submitRoute({
      path: '/v1/videos/generations',
      kind: 'generate',
      body: FamilyACreateBody,
      answer,
      toAnswer,
      operationId: 'createVideoA',
      summary: 'Family A: generate a video from a prompt (and a first frame)',
      toInput: (body) => ({
        kind: 'generate',
        model: body.model,
        prompt: body.prompt,
        inputs: inputRequests(familyAInputs, body),
        duration: body.duration,
        aspectRatio: body.aspect_ratio,
        resolution: body.resolution,
        seed: body.seed,
        callbackUrl: callbackUrlOf(body),
        serviceTier: body.service_tier,
        audio: body.generate_audio,
        delivery: deliveryOf(body),
      }),
    }),
    // Edits and extensions: only models whose catalog entry offers them get past the service.
    submitRoute({
      path: '/v1/videos/edits',
      kind: 'edit',
      body: FamilyAEditBody,
      answer,
      toAnswer,
      operationId: 'editVideoA',
      summary: 'Family A: edit a video (models that offer it)',
      toInput: (body) => ({
        kind: 'edit',
        model: body.model,
        prompt: body.prompt,
        inputs: [],
        video: sourceVideo(body.video),
        callbackUrl: callbackUrlOf(body),
        serviceTier: body.service_tier,
        audio: body.generate_audio,
        delivery: deliveryOf(body),
      }),
    }),
    submitRoute({
      path: '/v1/videos/extensions',
      kind: 'extend',
      body: FamilyAExtensionBody,
      answer,
      toAnswer,
      operationId: 'extendVideoA',
      summary: 'Family A: extend a video (models that offer it)',
      toInput: (body) => ({
        kind: 'extend',
        model: body.model,
        prompt: body.prompt,
        inputs: [],
        video: sourceVideo(body.video),
        duration: body.duration,
        callbackUrl: callbackUrlOf(body),
        serviceTier: body.service_tier,
        audio: body.generate_audio,
        delivery: deliveryOf(body),
      }),
    }),
  ],
  paths: { poll: '/v1/videos/:request_id', cancel: '/v1/videos/:request_id/cancel', list: '/v1/videos' },
  operations: {
    poll: {
      operationId: 'getVideoA',
      summary: 'Family A: poll a task',
      statusCodes: { 200: 'Finished: done, failed or expired', 202: 'Pending: poll again after `Retry-After` seconds' },
    },
    cancel: {
      operationId: 'cancelVideoA',
      summary: 'Family A: cancel a queued or running task (it ends failed, code canceled; vidgen extension)',
    },
    list: { operationId: 'listVideosA', summary: "Family A: list the account's tasks, newest first" },
    events: {
      operationId: 'streamVideoA',
      summary: 'Family A: follow a task, each change as a Server-Sent Event (vidgen extension)',
    },
  },
  tag: 'Family A',
  schemas: { task: FamilyATaskSchema, error: ErrorBody },
  statusWords: {
    pending: ['queued', 'running'],
    done: ['succeeded'],
    failed: ['failed', 'canceled'],
    expired: ['expired'],
  },
  // Family A's own words are `duration`, `aspect_ratio` and `resolution`.
  foreignFields: { seconds: 'duration', size: 'size', ratio: 'aspectRatio' },
  fieldName: (field, body) =>
    field === 'callbackUrl'
      ? callbackFieldName(body)
      : (inputFieldName(familyAInputs, field, body) ?? FIELD_NAMES[field] ?? field),
  toWire: toFamilyATask,
  // Spec 4.2: poll about every 4 s.
  pollStatus: (task) => (STATUS[task.status] === 'pending' ? { code: 202, retryAfterSeconds: 4 } : { code: 200 }),
  inFlightRetryAfterSeconds: 1,
  errorBody: openAiErrorBody,
};

function toFamilyATask(task: Task, ctx: WireContext, queuePosition?: number): FamilyATask {
  const body: FamilyATask = {
    request_id: task.id,
    status: STATUS[task.status],
    // Tasks from before the name was kept report the id without its resolution suffix, as they always did.
    model: task.params.reportedModel ?? task.model.replace(/-\d{3,4}p$/, ''),
    progress: task.status === 'succeeded' ? 100 : task.progress,
  };
  if (queuePosition !== undefined) body.queue_position = queuePosition;
  // Whole seconds, as docs/service-spec.md's integer: an edit keeps its input's length, which may be fractional.
  if (task.status === 'succeeded') {
    // The poster link is handed out whether or not making it succeeded (then it answers 404): checking would cost a
    // blob lookup per poll.
    body.video = {
      url: ctx.signedContentUrl(task),
      duration: Math.round(outputSeconds(task)),
      thumbnail_url: ctx.signedContentUrl(task, 'thumbnail'),
      ...hasAudio(task),
      ...storageAnswer(task, ctx),
    };
  }
  if (task.error && (task.status === 'failed' || task.status === 'canceled')) body.error = { ...task.error };
  if (task.usage) body.usage = { cost_in_usd_ticks: task.usage.costUsdTicks };
  body.service_tier = task.serviceTier;
  return body;
}

/**
 * Family A's inputs (docs/inputs.md): `image` (spec 2.4) and, as xAI's API and `@ai-sdk/xai` name
 * them, `last_frame`, `keyframes[{image, timestamp_s}]`, `reference_images[]` and
 * `reference_audios[]`, each `{url}` or `{file_id}` (a reference audio may name a `voice_id`).
 */
export const familyAInputs: WireInputs<CreateBody> = {
  read(body) {
    const inputs: WireInput[] = [];
    const image = (role: WireInput['request']['role'], value: { url?: string; file_id?: string }, field: string) =>
      inputs.push({ request: { role, ...oneSource(value, field) }, field, parts: objectParts(field) });
    if (body.image !== undefined) image('first_frame', body.image, 'image');
    if (body.last_frame !== undefined) image('last_frame', body.last_frame, 'last_frame');
    for (const [i, keyframe] of (body.keyframes ?? []).entries()) {
      const field = `keyframes[${i}]`;
      inputs.push({
        request: { role: 'keyframe', ...oneSource(keyframe.image, `${field}.image`), atSeconds: keyframe.timestamp_s },
        field,
        parts: { ...objectParts(`${field}.image`), atSeconds: `${field}.timestamp_s` },
      });
    }
    for (const [i, reference] of (body.reference_images ?? []).entries())
      image('reference_image', reference, `reference_images[${i}]`);
    for (const [i, audio] of (body.reference_audios ?? []).entries()) inputs.push(referenceAudio(audio, i));
    return inputs;
  },
  lists: {
    first_frame: 'image',
    last_frame: 'last_frame',
    keyframe: 'keyframes',
    reference_image: 'reference_images',
    reference_audio: 'reference_audios',
  },
};

function referenceAudio(audio: NonNullable<CreateBody['reference_audios']>[number], i: number): WireInput {
  const field = `reference_audios[${i}]`;
  const parts = { ...objectParts(field), voiceId: `${field}.voice_id` };
  if (audio.voice_id !== undefined && audio.url === undefined && audio.file_id === undefined)
    return { request: { role: 'reference_audio', voiceId: audio.voice_id }, field, parts };
  if (audio.voice_id !== undefined)
    throw new InvalidRequest(
      'invalid_audio',
      `\`${field}\` must have exactly one of \`url\`, \`file_id\` or \`voice_id\`.`,
      field,
    );
  return { request: { role: 'reference_audio', ...oneSource(audio, field, 'invalid_audio') }, field, parts };
}

/** `video` must be an object with exactly one of `url`, `file_id` or `request_id`. */
function sourceVideo(video: FamilyAVideoInput): VideoInput {
  const given = [video.url, video.file_id, video.request_id].filter((v) => v !== undefined).length;
  if (given !== 1) {
    throw new InvalidRequest(
      'invalid_video',
      '`video` must have exactly one of `url`, `file_id` or `request_id`.',
      'video',
    );
  }
  return { url: video.url, fileId: video.file_id, taskId: video.request_id };
}
