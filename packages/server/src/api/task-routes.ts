import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import { PollQuery, TaskList, TaskListQuery, Type, type ContentVariant } from '@vidgen/protocol';
import type { TaskService } from '../engine/task-service.ts';
import { FINISHED_STATUSES, type Task } from '../domain/task.ts';
import type { Dialect, WireContext } from './dialects/dialect.ts';
import { callerOf } from './authenticate.ts';
import { signedContentUrl, type LinkOptions } from './links.ts';
import { clientGone, idempotencyOf, listQueryOf, markReplay, waitMsOf } from './request-options.ts';
import { described, errorResponses, idParams } from './route-schemas.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The dialect that owns the route: its field names and error shape apply to the route's errors. */
    dialect?: Dialect;
  }
}

export interface TaskRouteDeps {
  tasks: TaskService;
  links: LinkOptions;
  clock: () => number;
}

/** An answer already serialized: sent as it is (Fastify serializes only what is not a string). */
function serialized(reply: FastifyReply, json: string): string {
  reply.type('application/json; charset=utf-8');
  return json;
}

type IdParams = { Params: Record<string, string>; Querystring: Record<string, string | undefined> };

/**
 * Submit, poll, list and cancel for one dialect. Everything dialect-specific comes from the
 * descriptor; everything that is a rule of the service lives in the task service.
 */
export function registerTaskRoutes(app: FastifyInstance, dialect: Dialect, deps: TaskRouteDeps): void {
  const config = { dialect };
  const schemas = taskRouteSchemas(dialect);
  const context = (request: FastifyRequest): WireContext => ({
    signedContentUrl: (task: Task, variant?: ContentVariant) =>
      signedContentUrl(request, task, callerOf(request).keyId, deps.links, deps.clock(), variant),
  });

  dialect.submits.forEach((route, i) => {
    // The model's endpoint is checked before its fields: a family B model posted here without a
    // field only B lacks should learn where to go, not which field to add for the wrong endpoint.
    const preValidation = (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
      const model = (request.body as { model?: unknown } | null)?.model;
      try {
        deps.tasks.checkServedHere(callerOf(request).account, model, dialect.family);
        done();
      } catch (err) {
        done(err as Error);
      }
    };
    app.post(route.path, { schema: schemas.submits[i], config, preValidation }, async (request, reply) => {
      const input = { ...route.toInput(request.body as never), family: dialect.family };
      const caller = callerOf(request);
      const submitted = await deps.tasks.submit(caller.account, input, idempotencyOf(request), caller.keyId);
      markReplay(reply, submitted);
      return route.toAnswer(submitted.task);
    });
  });

  // Answers to polls of finished tasks that hold no signed link, serialized once. Such an answer
  // depends on the task alone, and a finished task never changes while FinishedTasks hands out
  // the same object; once it stops (a succeeded task reaching expiresAt), the task is read again
  // as a new object, which is not in here.
  const finishedAnswers = new WeakMap<Task, string>();
  const answerPoll = (request: FastifyRequest, reply: FastifyReply, task: Task, queuePosition?: number) => {
    const { code, retryAfterSeconds } = dialect.pollStatus(task);
    reply.code(code);
    if (retryAfterSeconds !== undefined) reply.header('retry-after', String(retryAfterSeconds));
    const remembered = finishedAnswers.get(task);
    if (remembered !== undefined) return serialized(reply, remembered);
    let linked = false;
    const wire = dialect.toWire(
      task,
      { signedContentUrl: (t, variant) => ((linked = true), context(request).signedContentUrl(t, variant)) },
      queuePosition,
    );
    if (linked || !FINISHED_STATUSES.includes(task.status)) return wire;
    const text = reply.serializeInput(wire, String(code)) as string;
    finishedAnswers.set(task, text);
    return serialized(reply, text);
  };

  // Not async: a finished task this process remembers is answered at once, without a promise
  // (most polls in a client's loop are of tasks already done).
  app.get<IdParams>(dialect.paths.poll, { schema: schemas.poll, config }, (request, reply) => {
    const accountId = callerOf(request).account.id;
    const id = request.params[dialect.idField];
    const waitMs = waitMsOf(request.query);
    // Tells a waiting client this server holds polls (docs/long-poll.md), so it keeps long-polling.
    if (waitMs > 0) reply.header('x-vidgen-long-poll', String(waitMs));
    const finished = deps.tasks.finishedTask(accountId, id);
    if (finished) return answerPoll(request, reply, finished);
    return (async () => {
      const task =
        waitMs > 0
          ? await deps.tasks.waitForChange(accountId, id, waitMs, clientGone(request))
          : await deps.tasks.get(accountId, id);
      return answerPoll(request, reply, task, await deps.tasks.queuePosition(task));
    })();
  });

  app.post<IdParams>(dialect.paths.cancel, { schema: schemas.cancel, config }, async (request) =>
    dialect.toWire(
      await deps.tasks.cancel(callerOf(request).account.id, request.params[dialect.idField]),
      context(request),
    ),
  );

  app.get<IdParams>(dialect.paths.list, { schema: schemas.list, config }, async (request) => {
    const query = listQueryOf(request.query, dialect.statusWords);
    const page = await deps.tasks.list(callerOf(request).account.id, dialect.family, query);
    const ctx = context(request);
    const data = page.tasks.map((task) => ({
      ...dialect.toWire(task, ctx),
      created_at: Math.floor(task.createdAt / 1000),
      idempotency_key: task.idempotencyKey,
      prompt: task.params.prompt,
      requested_model: task.params.requestedModel ?? task.model,
      started_at: seconds(task.startedAt),
      finished_at: seconds(task.finishedAt),
    }));
    return { object: 'list', data, has_more: page.hasMore, last_id: page.tasks.at(-1)?.id ?? null };
  });
}

const IdempotencyHeader = Type.Object({
  'Idempotency-Key': Type.Optional(
    Type.String({
      description:
        'Same key and body replay the first answer (`Idempotent-Replayed: true`); another body is 422; still in flight is 409. 1–255 visible ASCII characters.',
    }),
  ),
});

/**
 * The schemas of a dialect's routes, from its descriptor: they validate requests, serialize
 * answers and make the OpenAPI document. Query values and headers are declared as the strings
 * they arrive as, so the service's own checks (with their field-naming messages) still decide.
 */
function taskRouteSchemas(dialect: Dialect) {
  const { operations: ops, schemas, idField } = dialect;
  const errors = errorResponses(schemas.error);
  const tags = [dialect.tag];
  const params = idParams(idField);
  const submits: FastifySchema[] = dialect.submits.map((route) => ({
    operationId: route.operationId,
    summary: route.summary,
    description: route.description,
    tags,
    body: route.body,
    headers: IdempotencyHeader,
    response: {
      200: described(route.answer, 'Task created (or, for a reused Idempotency-Key, the first answer again)'),
      ...errors,
    },
  }));
  const pollAnswers = Object.fromEntries(
    Object.entries(ops.poll.statusCodes).map(([code, text]) => [code, described(schemas.task, text)]),
  );
  return {
    submits,
    poll: { ...operation(ops.poll), tags, params, querystring: PollQuery, response: { ...pollAnswers, ...errors } },
    cancel: {
      ...operation(ops.cancel),
      tags,
      params,
      response: { 200: described(schemas.task, 'The task, now canceled'), ...errors },
    },
    list: {
      ...operation(ops.list),
      tags,
      querystring: TaskListQuery,
      response: { 200: described(TaskList(schemas.task), 'A page of tasks'), ...errors },
    },
  } satisfies Record<string, FastifySchema | FastifySchema[]>;
}

function operation({
  operationId,
  summary,
  description,
}: {
  operationId: string;
  summary: string;
  description?: string;
}) {
  return description === undefined ? { operationId, summary } : { operationId, summary, description };
}

const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));
