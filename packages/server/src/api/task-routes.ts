import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import { IdempotencyKeyValue, PollQuery, TaskList, TaskListQuery, Type, type ContentVariant } from '@vidgen/protocol';
import type { TaskService } from '../engine/task-service.ts';
import { FINISHED_STATUSES, type Task } from '../domain/task.ts';
import type { Dialect, WireContext } from './dialects/dialect.ts';
import { callerOf } from './authenticate.ts';
import { signedContentUrl, signedFileUrl, type LinkOptions } from './links.ts';
import { clientGone, listQueryOf, waitMsOf } from './request-options.ts';
import { NotFound } from '../errors.ts';
import { described, errorResponses, idParams } from './route-schemas.ts';
import type { TaskWatch } from '../engine/task-watch.ts';
import type { OpenStreams } from './streams/open-streams.ts';
import { registerTaskStreamRoute } from './streams/task-stream-route.ts';

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
  /** The watchers of task streams, and the streams this process serves (docs/streams.md). */
  watch: TaskWatch;
  streams: OpenStreams;
}

/** An answer already serialized: sent as it is (Fastify serializes only what is not a string). */
function serialized(reply: FastifyReply, json: string): string {
  reply.type('application/json; charset=utf-8');
  return json;
}

type IdParams = { Params: Record<string, string>; Querystring: Record<string, string | undefined> };

/**
 * Poll, task stream, list and cancel for one dialect. Everything dialect-specific comes from the
 * descriptor; everything that is a rule of the service lives in the task service.
 */
export function registerTaskRoutes(app: FastifyInstance, dialect: Dialect, deps: TaskRouteDeps): void {
  const config = { dialect };
  const schemas = taskRouteSchemas(dialect);
  // Routes on paths another dialect also serves take only the requests this one claims (api/dialect-claims.ts).
  const constraints = dialect.claims ? { dialect: dialect.family } : undefined;
  const taskIdOf = (request: FastifyRequest<IdParams>) => wireTaskId(dialect, request.params[dialect.idField]);
  const context = (request: FastifyRequest): WireContext => ({
    signedContentUrl: (task: Task, variant?: ContentVariant) =>
      signedContentUrl(request, task, callerOf(request).keyId, deps.links, deps.clock(), variant),
    signedFileUrl: (fileId, seconds, fileExpiresAt) =>
      signedFileUrl(request, fileId, callerOf(request).keyId, deps.links, deps.clock(), seconds, fileExpiresAt),
  });

  // Answers to polls of finished tasks that hold no signed link, serialized once. Such an answer
  // depends on the task alone, and a finished task never changes while FinishedTasks hands out
  // the same object; once it stops (a succeeded task reaching expiresAt), the task is read again
  // as a new object, which is not in here.
  const finishedAnswers = new WeakMap<Task, string>();
  const answerPoll = (request: FastifyRequest, reply: FastifyReply, task: Task, queuePosition?: number) => {
    const { code, retryAfterSeconds, headers } = dialect.pollStatus(task);
    reply.code(code);
    if (retryAfterSeconds !== undefined) reply.header('retry-after', String(retryAfterSeconds));
    if (headers) reply.headers(headers);
    const remembered = finishedAnswers.get(task);
    if (remembered !== undefined) return serialized(reply, remembered);
    let linked = false;
    const wire = dialect.toWire(
      task,
      {
        signedContentUrl: (t, variant) => ((linked = true), context(request).signedContentUrl(t, variant)),
        signedFileUrl: (...args) => ((linked = true), context(request).signedFileUrl!(...args)),
      },
      queuePosition,
    );
    if (linked || !FINISHED_STATUSES.includes(task.status)) return wire;
    const text = reply.serializeInput(wire, String(code)) as string;
    finishedAnswers.set(task, text);
    return serialized(reply, text);
  };

  // Not async: a finished task this process remembers is answered at once, without a promise
  // (most polls in a client's loop are of tasks already done).
  app.get<IdParams>(dialect.paths.poll, { schema: schemas.poll, config, constraints }, (request, reply) => {
    const accountId = callerOf(request).account.id;
    const id = taskIdOf(request);
    const waitMs = waitMsOf(request.query);
    // Tells a waiting client this server holds polls (docs/long-poll.md), so it keeps long-polling.
    if (waitMs > 0) reply.header('x-vidgen-long-poll', String(waitMs));
    const finished = deps.tasks.finishedTask(accountId, id);
    if (finished && ownTask(dialect, finished)) return answerPoll(request, reply, finished);
    return (async () => {
      const task = ownedTask(
        dialect,
        waitMs > 0
          ? await deps.tasks.waitForChange(accountId, id, waitMs, clientGone(request))
          : await deps.tasks.get(accountId, id),
        request.params[dialect.idField],
      );
      return answerPoll(request, reply, task, await deps.tasks.queuePosition(task));
    })();
  });

  registerTaskStreamRoute(app, dialect, {
    tasks: deps.tasks,
    watch: deps.watch,
    streams: deps.streams,
    context,
    taskIdOf: (wireId) => wireTaskId(dialect, wireId),
    owned: (task, wireId) => ownedTask(dialect, task, wireId),
  });

  app.post<IdParams>(dialect.paths.cancel, { schema: schemas.cancel, config, constraints }, async (request) => {
    const accountId = callerOf(request).account.id;
    if (dialect.owns)
      ownedTask(dialect, await deps.tasks.get(accountId, taskIdOf(request)), request.params[dialect.idField]);
    return dialect.toWire(await deps.tasks.cancel(accountId, taskIdOf(request)), context(request));
  });

  dialect.routes?.(app, { tasks: deps.tasks, clock: deps.clock, context });
  if (dialect.paths.list === undefined) return;
  app.get<IdParams>(dialect.paths.list, { schema: schemas.list, config, constraints }, async (request) => {
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

/** The task id a wire id names: itself, unless the dialect maps ids (an id not its own names no task). */
export function wireTaskId(dialect: Dialect, wireId: string): string {
  if (!dialect.wireIds) return wireId;
  return dialect.wireIds.toTask(wireId) ?? '';
}

function ownTask(dialect: Dialect, task: Task): boolean {
  return dialect.owns?.(task) ?? true;
}

/** The task, if the dialect answers for it; else the 404 of an unknown id. */
export function ownedTask(dialect: Dialect, task: Task, wireId: string): Task {
  if (!ownTask(dialect, task)) throw new NotFound('task', wireId);
  return task;
}

export const IdempotencyHeader = Type.Object({ 'Idempotency-Key': Type.Optional(IdempotencyKeyValue) });

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
  const pollAnswers = Object.fromEntries(
    Object.entries(ops.poll.statusCodes).map(([code, text]) => [code, described(schemas.task, text)]),
  );
  return {
    poll: { ...operation(ops.poll), tags, params, querystring: PollQuery, response: { ...pollAnswers, ...errors } },
    cancel: {
      ...operation(ops.cancel),
      tags,
      params,
      response: { 200: described(schemas.task, 'The task, now canceled'), ...errors },
    },
    list: {
      ...operation(ops.list ?? { operationId: '', summary: '' }),
      tags,
      querystring: TaskListQuery,
      response: { 200: described(TaskList(schemas.task), 'A page of tasks'), ...errors },
    },
  } satisfies Record<string, FastifySchema | FastifySchema[]>;
}

export function operation({
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
