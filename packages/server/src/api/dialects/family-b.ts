import {
  ErrorBody,
  FamilyBCreateBody,
  FamilyBCreateResponse,
  FamilyBTask as FamilyBTaskSchema,
  type FamilyBCreateBody as CreateBody,
  type FamilyBStatus,
  type FamilyBTask,
} from '@vidgen/protocol';
import type { Task, TaskStatus } from '../../domain/task.ts';
import { InvalidRequest } from '../../errors.ts';
import { contentPath } from '../links.ts';
import { callbackFieldName, callbackUrlOf } from './callback-url.ts';
import { DELIVERY_FIELD_NAMES, deliveryOf, storageAnswer } from './output-target.ts';
import { hasAudio, openAiErrorBody, submitRoute, type Dialect, type WireContext } from './dialect.ts';
import { inputFieldName, inputRequests, type WireInput, type WireInputs } from './wire-inputs.ts';

/** Family B has no word for an expired result: the task stays SUCCESS, and its content answers 410. */
const STATUS: Record<TaskStatus, FamilyBStatus> = {
  queued: 'queued',
  running: 'IN_PROGRESS',
  succeeded: 'SUCCESS',
  failed: 'FAILURE',
  canceled: 'FAILURE',
  expired: 'SUCCESS',
};

const FIELD_NAMES: Record<string, string> = {
  aspectRatio: 'ratio',
  duration: 'seconds',
  images: 'image',
  audio: 'generate_audio',
  ...DELIVERY_FIELD_NAMES,
  serviceTier: 'service_tier',
};

/**
 * Family B (new-api relay style): `task_id`, upper-case states, `seconds` as text, content
 * fetched from a relative path with the key. Cancel is a vidgen extension: the task ends
 * `FAILURE` with error code `canceled`.
 */
export const familyB: Dialect = {
  family: 'B',
  idField: 'task_id',
  submits: [
    submitRoute({
      path: '/v1/video/generations',
      kind: 'generate',
      body: FamilyBCreateBody,
      answer: FamilyBCreateResponse,
      operationId: 'createVideoB',
      summary: 'Family B: generate a video from a prompt (and reference images)',
      toInput: (body) => ({
        kind: 'generate',
        model: body.model,
        prompt: body.prompt,
        inputs: inputRequests(familyBInputs, body),
        aspectRatio: body.ratio,
        seed: body.seed,
        callbackUrl: callbackUrlOf(body),
        serviceTier: body.service_tier,
        audio: body.generate_audio,
        delivery: deliveryOf(body),
      }),
      toAnswer: (task) => ({ task_id: task.id, status: 'queued', seconds: String(task.params.duration) }),
    }),
  ],
  paths: {
    poll: '/v1/video/generations/:task_id',
    cancel: '/v1/video/generations/:task_id/cancel',
    list: '/v1/video/generations',
  },
  operations: {
    poll: {
      operationId: 'getVideoB',
      summary: 'Family B: poll a task',
      statusCodes: { 200: 'The task; while queued or IN_PROGRESS, poll again after `Retry-After` seconds' },
    },
    cancel: {
      operationId: 'cancelVideoB',
      summary: 'Family B: cancel a queued or running task (it ends FAILURE, code canceled; vidgen extension)',
    },
    list: { operationId: 'listVideosB', summary: "Family B: list the account's tasks, newest first" },
    events: {
      operationId: 'streamVideoB',
      summary: 'Family B: follow a task, each change as a Server-Sent Event (vidgen extension)',
    },
  },
  tag: 'Family B',
  schemas: { task: FamilyBTaskSchema, error: ErrorBody },
  statusWords: {
    queued: ['queued'],
    IN_PROGRESS: ['running'],
    SUCCESS: ['succeeded', 'expired'],
    FAILURE: ['failed', 'canceled'],
  },
  // Family B's own words are `ratio` and the model (its name fixes the length): the rest are foreign.
  foreignFields: {
    seconds: 'duration',
    duration: 'duration',
    size: 'size',
    resolution: 'resolution',
    aspect_ratio: 'aspectRatio',
  },
  fieldName(field, body) {
    if (field === 'callbackUrl') return callbackFieldName(body);
    return inputFieldName(familyBInputs, field, body) ?? FIELD_NAMES[field] ?? field;
  },
  toWire: (task, ctx, queuePosition) => toFamilyBTask(task, ctx, queuePosition),
  // Spec 4.6: poll about every 15 s; unfinished answers are 200 like finished ones.
  pollStatus: (task) =>
    task.status === 'queued' || task.status === 'running' ? { code: 200, retryAfterSeconds: 15 } : { code: 200 },
  inFlightRetryAfterSeconds: 1,
  errorBody: openAiErrorBody,
};

function toFamilyBTask(task: Task, ctx: WireContext, queuePosition?: number): FamilyBTask {
  const body: FamilyBTask = {
    task_id: task.id,
    status: STATUS[task.status],
    progress: task.status === 'succeeded' || task.status === 'expired' ? 100 : task.progress,
    seconds: String(task.params.duration),
    model: task.params.reportedModel ?? task.model,
  };
  if (queuePosition !== undefined) body.queue_position = queuePosition;
  if (task.status === 'succeeded') Object.assign(body, { result_url: contentPath(task.id), ...hasAudio(task) });
  if (task.status === 'expired') body.expired = true;
  const storage = storageAnswer(task, ctx);
  if (storage) body.video = storage;
  if (task.error && (task.status === 'failed' || task.status === 'canceled')) body.error = { ...task.error };
  // vidgen extension in family B: xAI's field name.
  if (task.usage) body.usage = { cost_in_usd_ticks: task.usage.costUsdTicks };
  body.service_tier = task.serviceTier;
  return body;
}

/**
 * Family B's inputs (docs/inputs.md): `image` (one) or `images` (several), never both (spec 4.5);
 * `images[0]` is the first frame and `images[1..]` reference images; `last_frame` is a vidgen
 * extension field, like `generate_audio`. Each is a URL or a data URI string.
 */
export const familyBInputs: WireInputs<CreateBody> = {
  read(body) {
    if (body.image !== undefined && body.images !== undefined) {
      throw new InvalidRequest('invalid_image', 'Use either `image` or `images`, not both.', 'images');
    }
    const inputs: WireInput[] = [];
    if (body.image !== undefined) inputs.push({ request: { role: 'first_frame', url: body.image }, field: 'image' });
    for (const [i, url] of (body.images ?? []).entries())
      inputs.push({ request: { role: i === 0 ? 'first_frame' : 'reference_image', url }, field: `images[${i}]` });
    if (body.last_frame !== undefined)
      inputs.push({ request: { role: 'last_frame', url: body.last_frame }, field: 'last_frame' });
    return inputs;
  },
  lists: { first_frame: 'image', reference_image: 'images', last_frame: 'last_frame' },
};
