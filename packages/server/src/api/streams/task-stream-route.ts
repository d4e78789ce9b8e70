import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@vidgen/protocol';
import type { TaskService } from '../../engine/task-service.ts';
import type { TaskWatch } from '../../engine/task-watch.ts';
import { FINISHED_STATUSES, type Task } from '../../domain/task.ts';
import { InvalidRequest } from '../../errors.ts';
import type { Dialect, WireContext } from '../dialects/dialect.ts';
import { callerOf } from '../authenticate.ts';
import { errorResponses, idParams } from '../route-schemas.ts';
import { EventStream } from './event-stream.ts';
import type { OpenStreams } from './open-streams.ts';

export interface TaskStreamDeps {
  tasks: TaskService;
  watch: TaskWatch;
  streams: OpenStreams;
  /** The links a task's body carries are signed for the caller, as the poll's are. */
  context(request: FastifyRequest): WireContext;
  /** The task id a wire id names (api/task-routes.ts `wireTaskId`). */
  taskIdOf(wireId: string): string;
  /** The task if the dialect answers for it, else the 404 of an unknown id (api/task-routes.ts `ownedTask`). */
  owned(task: Task, wireId: string): Task;
}

/** How long a client waits before reconnecting to a stream that ended before the task did (the SSE `retry:` field). */
export const STREAM_RETRY_MS = 2000;

type StreamRequest = FastifyRequest<{ Params: Record<string, string> }>;

/** `<poll path>/events`: the path of a dialect's task stream. */
export function streamPath(dialect: Dialect): string {
  return `${dialect.paths.poll}/events`;
}

/**
 * `GET <poll path>/events`: the task's states as Server-Sent Events, each event's data the poll's
 * own body and its id the task's revision, ending with the final state (docs/streams.md). Every
 * refusal (key, tenant, bound, a bad `Last-Event-ID`) is answered before the stream starts, in the
 * dialect's envelope, by the error handler as for the poll.
 */
export function registerTaskStreamRoute(app: FastifyInstance, dialect: Dialect, deps: TaskStreamDeps): void {
  const constraints = dialect.claims ? { dialect: dialect.family } : undefined;
  app.route<{ Params: Record<string, string> }>({
    method: 'GET',
    url: streamPath(dialect),
    // A HEAD would open a stream whose body nobody reads.
    exposeHeadRoute: false,
    config: { dialect },
    constraints,
    schema: streamSchema(dialect),
    handler: async (request: StreamRequest, reply: FastifyReply) => {
      const accountId = callerOf(request).account.id;
      const wireId = request.params[dialect.idField];
      const after = lastEventIdOf(request.headers['last-event-id']);
      const task = deps.owned(await deps.tasks.get(accountId, deps.taskIdOf(wireId)), wireId);
      const finished = FINISHED_STATUSES.includes(task.status);
      // A client that has the final state already: nothing more will come, and 204 tells an
      // EventSource not to reconnect.
      if (finished && after !== undefined && task.revision <= after) return reply.code(204).send();

      const stream = new EventStream(STREAM_RETRY_MS);
      const serialize = reply.compileSerializationSchema(dialect.schemas.task);
      const ctx = deps.context(request);
      let sent = after ?? -1;
      let unwatch: (() => void) | undefined;
      // Events go out in revision order: a queued task's body waits for its queue position.
      let queue = Promise.resolve();
      const send = (next: Task) => {
        queue = queue.then(async () => {
          if (next.revision <= sent || !stream.open) return;
          sent = next.revision;
          try {
            const position = await deps.tasks.queuePosition(next);
            stream.event(String(next.revision), serialize(dialect.toWire(next, ctx, position)));
          } catch {
            // Its client reconnects with the last id it got, and is sent this state again then.
            return end();
          }
          if (FINISHED_STATUSES.includes(next.status)) end();
        });
      };
      const end = finished
        ? () => stream.end()
        : deps.streams.admit(accountId, stream, () => {
            unwatch?.();
            unwatch = undefined;
          });
      if (task.revision > sent) send(task);
      if (!finished) unwatch = deps.watch.watch(task.id, Math.max(task.revision, sent), send);
      reply.raw.once('close', end);
      reply
        .header('content-type', 'text/event-stream; charset=utf-8')
        .header('cache-control', 'no-cache, no-transform')
        // nginx buffers answers unless told not to; a buffered stream would arrive all at once at its end.
        .header('x-accel-buffering', 'no');
      return reply.send(stream.body);
    },
  });
}

/** The id of the last event the client saw, from `Last-Event-ID` (a revision); undefined without one. */
function lastEventIdOf(raw: string | string[] | undefined): number | undefined {
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  // An empty one is none, as EventSource has it (it sends the header only with an id).
  if (value === undefined || value === '') return undefined;
  if (!/^\d{1,15}$/.test(value)) {
    throw new InvalidRequest(
      'invalid_last_event_id',
      '`Last-Event-ID` must be the id of an event this stream sent (a whole number).',
      'Last-Event-ID',
    );
  }
  return Number(value);
}

function streamSchema(dialect: Dialect) {
  const poll = dialect.operations.poll;
  const events = dialect.operations.events ?? {
    operationId: `${poll.operationId}Events`,
    summary: `${poll.summary}: its changes as Server-Sent Events`,
  };
  return {
    operationId: events.operationId,
    summary: events.summary,
    description:
      "Server-Sent Events (`text/event-stream`): one event per change of the task's status or progress, its `data` " +
      `the poll's body (the \`${dialect.tag}\` task object), its \`id\` the task's revision; the stream ends after ` +
      'the final state. Reconnect with `Last-Event-ID` to any API process: the state newer than that id comes ' +
      'first, nothing is sent twice. Comment lines (`: ping`) keep an idle stream open (docs/streams.md).',
    tags: [dialect.tag],
    params: idParams(dialect.idField),
    headers: Type.Object({
      'Last-Event-ID': Type.Optional(
        Type.String({ description: 'The id of the last event received: only newer states are sent.' }),
      ),
    }),
    response: {
      200: {
        description: 'The stream: `retry:`, then one event per state (`id:` revision, `data:` the task as JSON)',
        content: {
          'text/event-stream': {
            schema: Type.String({ description: `Events whose data are ${dialect.tag} task objects` }),
          },
        },
      },
      204: Type.Null({ description: 'The task has ended and `Last-Event-ID` names its final state: nothing to send' }),
      ...errorResponses(dialect.schemas.error),
    },
  };
}
