import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  FamilyACreateBody, FamilyAEditBody, FamilyAExtensionBody,
  type FamilyACreateBody as CreateBody, type FamilyAEditBody as EditBody, type FamilyAExtensionBody as ExtensionBody,
} from '@vidgen/protocol';
import type { TaskService, ImageInput, SubmitInput } from '../../engine/task-service.ts';
import type { VideoInput } from '../../engine/video-refs.ts';
import type { Task, TaskKind } from '../../engine/task.ts';
import { InvalidRequest } from '../../errors.ts';
import { callerOf } from '../authenticate.ts';
import { signedContentUrl, type LinkOptions } from '../links.ts';
import { clientGone, idempotencyOf, listQueryOf, markReplay, waitMsOf } from '../request-options.ts';
import { FAMILY_A_LIST_STATUSES, familyAStatus, toFamilyATask } from './to-wire.ts';

const FIELDS = { aspectRatio: 'aspect_ratio', duration: 'duration', image: 'image' };

type Query = Record<string, string | undefined>;

/** Family A (xAI style): `request_id`, pending answers are HTTP 202 with a JSON body. */
export function registerFamilyARoutes(app: FastifyInstance, deps: { tasks: TaskService; links: LinkOptions; clock: () => number }) {
  const submit = async (request: FastifyRequest, reply: FastifyReply, input: SubmitInput) => {
    const submitted = await deps.tasks.submit(callerOf(request).account, input, idempotencyOf(request));
    markReplay(reply, submitted);
    return { request_id: submitted.task.id };
  };

  app.post<{ Body: CreateBody }>('/v1/videos/generations', { schema: { body: FamilyACreateBody } }, async (request, reply) => {
    const body = request.body;
    const images = body.image === undefined ? [] : [firstFrame(body.image)];
    return submit(request, reply, {
      family: 'A', kind: 'generate', model: body.model, prompt: body.prompt, images,
      duration: body.duration, aspectRatio: body.aspect_ratio, seed: body.seed, fields: FIELDS,
    });
  });

  // Edits and extensions: only models whose catalog entry offers them get past the service.
  const variant = (kind: TaskKind) => async (request: FastifyRequest<{ Body: EditBody | ExtensionBody }>, reply: FastifyReply) => {
    const body = request.body;
    return submit(request, reply, {
      family: 'A', kind, model: body.model, prompt: body.prompt, images: [], video: sourceVideo(body.video),
      duration: 'duration' in body ? body.duration : undefined, fields: FIELDS,
    });
  };
  app.post<{ Body: EditBody }>('/v1/videos/edits', { schema: { body: FamilyAEditBody } }, variant('edit'));
  app.post<{ Body: ExtensionBody }>('/v1/videos/extensions', { schema: { body: FamilyAExtensionBody } }, variant('extend'));

  const wire = (request: FastifyRequest, task: Task, queuePosition?: number) => {
    const url = familyAStatus(task) === 'done' ? signedContentUrl(request, task, callerOf(request).keyId, deps.links, deps.clock()) : undefined;
    return toFamilyATask(task, url, queuePosition);
  };

  app.get<{ Params: { request_id: string }; Querystring: Query }>('/v1/videos/:request_id', async (request, reply) => {
    const accountId = callerOf(request).account.id;
    const waitMs = waitMsOf(request.query);
    const task = waitMs > 0
      ? await deps.tasks.waitForChange(accountId, request.params.request_id, waitMs, clientGone(request))
      : await deps.tasks.get(accountId, request.params.request_id);
    if (familyAStatus(task) === 'pending') reply.code(202).header('retry-after', '4');
    if (waitMs > 0) reply.header('x-vidgen-long-poll', String(waitMs)); // this server holds ?wait= polls (docs/long-poll.md)
    return wire(request, task, await deps.tasks.queuePosition(task));
  });

  // Extension of the xAI dialect: cancel ends a task as `failed` with error code `canceled`.
  app.post<{ Params: { request_id: string } }>('/v1/videos/:request_id/cancel', async (request) =>
    wire(request, await deps.tasks.cancel(callerOf(request).account.id, request.params.request_id)),
  );

  app.get<{ Querystring: Query }>('/v1/videos', async (request) => {
    const query = listQueryOf(request.query, FAMILY_A_LIST_STATUSES);
    const page = await deps.tasks.list(callerOf(request).account.id, 'A', query);
    const data = page.tasks.map((task) => ({ ...wire(request, task), created_at: Math.floor(task.createdAt / 1000), idempotency_key: task.idempotencyKey }));
    return { object: 'list', data, has_more: page.hasMore, last_id: data.at(-1)?.request_id ?? null };
  });
}

/** `image` must be an object with exactly one of `url` or `file_id` (spec 2.4). */
function firstFrame(image: { url?: string; file_id?: string }): ImageInput {
  const hasUrl = image.url !== undefined;
  const hasFile = image.file_id !== undefined;
  if (hasUrl === hasFile) {
    throw new InvalidRequest('invalid_image', '`image` must have exactly one of `url` or `file_id`.', 'image');
  }
  return hasUrl ? { param: 'image.url', url: image.url } : { param: 'image.file_id', fileId: image.file_id };
}

/** `video` must be an object with exactly one of `url`, `file_id` or `request_id`. */
function sourceVideo(video: { url?: string; file_id?: string; request_id?: string }): VideoInput {
  const given = [video.url, video.file_id, video.request_id].filter((v) => v !== undefined).length;
  if (given !== 1) {
    throw new InvalidRequest('invalid_video', '`video` must have exactly one of `url`, `file_id` or `request_id`.', 'video');
  }
  return { param: 'video', url: video.url, fileId: video.file_id, requestId: video.request_id };
}
