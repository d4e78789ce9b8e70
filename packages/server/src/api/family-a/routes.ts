import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  FamilyACreateBody, FamilyAEditBody, FamilyAExtensionBody,
  type FamilyACreateBody as CreateBody, type FamilyAEditBody as EditBody, type FamilyAExtensionBody as ExtensionBody,
} from '@vidgen/protocol';
import type { TaskService, ImageInput, SubmitInput } from '../../engine/task-service.ts';
import type { TaskKind } from '../../engine/task.ts';
import { InvalidRequest } from '../../errors.ts';
import { callerOf } from '../authenticate.ts';
import { signedContentUrl, type LinkOptions } from '../links.ts';
import { familyAStatus, toFamilyATask } from './to-wire.ts';

const FIELDS = { aspectRatio: 'aspect_ratio', duration: 'duration', image: 'image' };

/** Family A (xAI style): `request_id`, pending answers are HTTP 202 with a JSON body. */
export function registerFamilyARoutes(app: FastifyInstance, deps: { tasks: TaskService; links: LinkOptions; clock: () => number }) {
  app.post<{ Body: CreateBody }>('/v1/videos/generations', { schema: { body: FamilyACreateBody } }, async (request) => {
    const body = request.body;
    const images = body.image === undefined ? [] : [firstFrame(body.image)];
    const task = await deps.tasks.submit(callerOf(request).account, {
      family: 'A', kind: 'generate', model: body.model, prompt: body.prompt, images,
      duration: body.duration, aspectRatio: body.aspect_ratio, seed: body.seed, fields: FIELDS,
    });
    return { request_id: task.id };
  });

  // Edits and extensions: only models whose catalog entry offers them get past the service.
  const variant = (kind: TaskKind) => async (request: FastifyRequest<{ Body: EditBody | ExtensionBody }>) => {
    const body = request.body;
    const input: SubmitInput = {
      family: 'A', kind, model: body.model, prompt: body.prompt, images: [],
      duration: 'duration' in body ? body.duration : undefined, fields: FIELDS,
    };
    const task = await deps.tasks.submit(callerOf(request).account, input);
    return { request_id: task.id };
  };
  app.post<{ Body: EditBody }>('/v1/videos/edits', { schema: { body: FamilyAEditBody } }, variant('edit'));
  app.post<{ Body: ExtensionBody }>('/v1/videos/extensions', { schema: { body: FamilyAExtensionBody } }, variant('extend'));

  app.get<{ Params: { request_id: string } }>('/v1/videos/:request_id', async (request, reply) => {
    const caller = callerOf(request);
    const task = await deps.tasks.get(caller.account.id, request.params.request_id);
    const status = familyAStatus(task);
    const url = status === 'done' ? signedContentUrl(request, task, caller.keyId, deps.links, deps.clock()) : undefined;
    if (status === 'pending') reply.code(202).header('retry-after', '4');
    return toFamilyATask(task, url);
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
