import type { FastifyInstance } from 'fastify';
import { FamilyBCreateBody, type FamilyBCreateBody as CreateBody } from '@vidgen/protocol';
import type { ImageInput, TaskService } from '../../engine/task-service.ts';
import { InvalidRequest } from '../../errors.ts';
import { callerOf } from '../authenticate.ts';
import { clientGone, idempotencyOf, listQueryOf, markReplay, waitMsOf } from '../request-options.ts';
import { FAMILY_B_LIST_STATUSES, toFamilyBTask } from './to-wire.ts';

const FIELDS = { aspectRatio: 'ratio', duration: 'seconds', image: 'image' };

type Query = Record<string, string | undefined>;

/** Family B (new-api style): `task_id`, upper-case states, content fetched from a relative path. */
export function registerFamilyBRoutes(app: FastifyInstance, deps: { tasks: TaskService }) {
  app.post<{ Body: CreateBody }>('/v1/video/generations', { schema: { body: FamilyBCreateBody } }, async (request, reply) => {
    const body = request.body;
    const submitted = await deps.tasks.submit(
      callerOf(request).account,
      {
        family: 'B', kind: 'generate', model: body.model, prompt: body.prompt, images: referenceImages(body),
        aspectRatio: body.ratio, seed: body.seed, fields: FIELDS,
      },
      idempotencyOf(request),
    );
    markReplay(reply, submitted);
    // The create answer is always the one the task got when it was created.
    return { task_id: submitted.task.id, status: 'queued', seconds: String(submitted.task.params.duration) };
  });

  app.get<{ Params: { task_id: string }; Querystring: Query }>('/v1/video/generations/:task_id', async (request, reply) => {
    const accountId = callerOf(request).account.id;
    const waitMs = waitMsOf(request.query);
    const task = waitMs > 0
      ? await deps.tasks.waitForChange(accountId, request.params.task_id, waitMs, clientGone(request))
      : await deps.tasks.get(accountId, request.params.task_id);
    if (task.status === 'queued' || task.status === 'running') reply.header('retry-after', '15');
    if (waitMs > 0) reply.header('x-vidgen-long-poll', String(waitMs)); // this server holds ?wait= polls (docs/long-poll.md)
    return toFamilyBTask(task, await deps.tasks.queuePosition(task));
  });

  // Extension of the new-api dialect: cancel ends a task as FAILURE with error code `canceled`.
  app.post<{ Params: { task_id: string } }>('/v1/video/generations/:task_id/cancel', async (request) =>
    toFamilyBTask(await deps.tasks.cancel(callerOf(request).account.id, request.params.task_id)),
  );

  app.get<{ Querystring: Query }>('/v1/video/generations', async (request) => {
    const query = listQueryOf(request.query, FAMILY_B_LIST_STATUSES);
    const page = await deps.tasks.list(callerOf(request).account.id, 'B', query);
    const data = page.tasks.map((task) => ({ ...toFamilyBTask(task), created_at: Math.floor(task.createdAt / 1000), idempotency_key: task.idempotencyKey }));
    return { object: 'list', data, has_more: page.hasMore, last_id: data.at(-1)?.task_id ?? null };
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
