import type { FastifyInstance } from 'fastify';
import { FamilyBCreateBody, type FamilyBCreateBody as CreateBody } from '@vidgen/protocol';
import type { ImageInput, TaskService } from '../../engine/task-service.ts';
import { InvalidRequest } from '../../errors.ts';
import { callerOf } from '../authenticate.ts';
import { toFamilyBTask } from './to-wire.ts';

const FIELDS = { aspectRatio: 'ratio', duration: 'seconds', image: 'image' };

/** Family B (new-api style): `task_id`, upper-case states, content fetched from a relative path. */
export function registerFamilyBRoutes(app: FastifyInstance, deps: { tasks: TaskService }) {
  app.post<{ Body: CreateBody }>('/v1/video/generations', { schema: { body: FamilyBCreateBody } }, async (request) => {
    const body = request.body;
    const task = await deps.tasks.submit(callerOf(request).account, {
      family: 'B', kind: 'generate', model: body.model, prompt: body.prompt, images: referenceImages(body),
      aspectRatio: body.ratio, seed: body.seed, fields: FIELDS,
    });
    return { task_id: task.id, status: 'queued', seconds: String(task.params.duration) };
  });

  app.get<{ Params: { task_id: string } }>('/v1/video/generations/:task_id', async (request, reply) => {
    const task = await deps.tasks.get(callerOf(request).account.id, request.params.task_id);
    if (task.status === 'queued' || task.status === 'running') reply.header('retry-after', '15');
    return toFamilyBTask(task);
  });
}

/** `image` (one) or `images` (several), never both (spec 4.5). */
function referenceImages(body: CreateBody): ImageInput[] {
  if (body.image !== undefined && body.images !== undefined) {
    throw new InvalidRequest('invalid_image', 'Use either `image` or `images`, not both.', 'images');
  }
  if (body.image !== undefined) return [{ param: 'image', url: body.image }];
  return (body.images ?? []).map((url, i) => ({ param: `images[${i}]`, url }));
}
