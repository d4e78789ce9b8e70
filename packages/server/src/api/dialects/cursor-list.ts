import type { FastifyInstance, FastifyRequest } from 'fastify';
import { OpenAiVideoListQuery, type TSchema } from '@vidgen/protocol';
import type { TaskStatus } from '../../domain/task.ts';
import { InvalidRequest } from '../../errors.ts';
import { callerOf } from '../authenticate.ts';
import { pageLimitOf } from '../pages.ts';
import { described, errorResponses } from '../route-schemas.ts';
import type { Dialect, DialectRouteDeps, WireContext } from './dialect.ts';

/** Every state but expired: a listing shows what retrieve shows (deleted failures are dropped after the read). */
const LISTED: TaskStatus[] = ['queued', 'running', 'succeeded', 'failed', 'canceled'];

type ListRequest = FastifyRequest<{ Querystring: { after?: string; limit?: string; order?: 'asc' | 'desc' } }>;

export interface CursorListOptions {
  operationId: string;
  summary: string;
  /** `{object: "list", data, first_id, last_id, has_more}` of the dialect's task. */
  answer: TSchema;
  /** The links an entry carries (signed for the caller), or none. */
  context(request: FastifyRequest): WireContext;
}

/**
 * `GET /v1/videos` as OpenAI's listing is (openai-node `ConversationCursorPage`): `after` a wire id,
 * `limit`, `order`; taken only by the requests the dialect claims (api/dialect-claims.ts).
 */
export function registerCursorList(
  app: FastifyInstance,
  dialect: Dialect,
  deps: DialectRouteDeps,
  options: CursorListOptions,
): void {
  const ids = dialect.wireIds!;
  const prefix = ids.fromTask(zero).replace(/0+$/, '');
  app.get(
    '/v1/videos',
    {
      config: { dialect },
      constraints: { dialect: dialect.family },
      schema: {
        operationId: options.operationId,
        summary: options.summary,
        tags: [dialect.tag],
        querystring: OpenAiVideoListQuery,
        response: { 200: described(options.answer, 'A page of videos'), ...errorResponses(dialect.schemas.error) },
      },
    },
    async (request: ListRequest) => {
      const { after, order = 'desc' } = request.query;
      const afterTask = after === undefined ? undefined : ids.toTask(after);
      if (after !== undefined && afterTask === undefined)
        throw new InvalidRequest('invalid_value', `\`after\` must be a \`${prefix}…\` id.`, 'after');
      const page = await deps.tasks.list(callerOf(request).account.id, dialect.family, {
        limit: pageLimitOf(request.query.limit),
        after: afterTask,
        order,
        statuses: LISTED,
      });
      const ctx = options.context(request);
      const data = page.tasks.filter((task) => dialect.owns?.(task) ?? true).map((task) => dialect.toWire(task, ctx));
      const last = page.tasks.at(-1);
      return {
        object: 'list',
        data,
        first_id: (data[0]?.id as string | undefined) ?? null,
        // The cursor is the last task read, shown or not, so the next page starts after it.
        last_id: last ? ids.fromTask(last.id) : null,
        has_more: page.hasMore,
      };
    },
  );
}

const zero = '00000000-0000-0000-0000-000000000000';
