import type { FastifyInstance, FastifyRequest } from 'fastify';
import { OpenAiVideo, OpenAiVideoDeleted, OpenAiVideoList, OpenAiVideoRemixBody } from '@vidgen/protocol';
import { NotFound } from '../../errors.ts';
import { callerOf } from '../authenticate.ts';
import { idempotencyOf, markReplay } from '../request-options.ts';
import { described, errorResponses, idParams } from '../route-schemas.ts';
import { IdempotencyHeader, ownedTask, wireTaskId } from '../task-routes.ts';
import type { Dialect, DialectRouteDeps } from './dialect.ts';
import { registerCursorList } from './cursor-list.ts';

type Params = { Params: { video_id: string } };

/** The OpenAI dialect's routes beyond create, retrieve and cancel: list, delete and remix. */
export function registerOpenAiVideoRoutes(app: FastifyInstance, dialect: Dialect, deps: DialectRouteDeps): void {
  const config = { dialect };
  const tags = [dialect.tag];
  const errors = errorResponses(dialect.schemas.error);
  const owned = async (request: FastifyRequest<Params>) =>
    ownedTask(
      dialect,
      await deps.tasks.get(callerOf(request).account.id, wireTaskId(dialect, request.params.video_id)),
      request.params.video_id,
    );

  registerCursorList(app, dialect, deps, {
    operationId: 'listVideos',
    summary: 'OpenAI Videos: list videos (docs/openai-videos.md says which listing answers)',
    answer: OpenAiVideoList,
    context: () => noLinks,
  });

  app.delete<Params>(
    '/v1/videos/:video_id',
    {
      config,
      schema: {
        operationId: 'deleteVideo',
        summary: 'OpenAI Videos: delete a completed or failed video (its files; the ledger keeps its record)',
        tags,
        params: idParams('video_id'),
        response: { 200: described(OpenAiVideoDeleted, 'Deleted: retrieving it is now a 404'), ...errors },
      },
    },
    async (request) => {
      const task = await owned(request);
      await deps.tasks.endNow(task.accountId, task.id);
      return { id: request.params.video_id, object: 'video.deleted', deleted: true };
    },
  );

  app.post<Params & { Body: { prompt: string } }>(
    '/v1/videos/:video_id/remix',
    {
      config,
      schema: {
        operationId: 'remixVideo',
        summary: 'OpenAI Videos: remix a completed video with a new prompt (an edit by the same model)',
        tags,
        params: idParams('video_id'),
        headers: IdempotencyHeader,
        body: OpenAiVideoRemixBody,
        response: { 200: described(OpenAiVideo, 'The new video'), ...errors },
      },
    },
    async (request, reply) => {
      const source = await owned(request);
      const caller = callerOf(request);
      const input = {
        family: dialect.family,
        kind: 'edit' as const,
        model: source.params.requestedModel ?? source.model,
        prompt: request.body.prompt,
        inputs: [],
        video: { taskId: source.id },
      };
      const submitted = await deps.tasks.submit(caller.account, input, idempotencyOf(request), caller.keyId);
      markReplay(reply, submitted);
      return dialect.toWire(submitted.task, noLinks);
    },
  );
}

/** This dialect's answers hold no links: content is fetched by id with the key. */
const noLinks = {
  signedContentUrl: (): string => {
    throw new NotFound('task', 'link');
  },
};
