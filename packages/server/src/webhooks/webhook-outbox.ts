import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Task } from '../domain/task.ts';
import type { Database } from '../store/sql/schema.ts';
import { TASK_COLUMNS, toTask } from '../store/sql/task-row.ts';
import type { TransitionEffects } from '../store/sql/transition-effects.ts';
import { TASK_EVENT_TYPES, eventTypeOf } from './webhook-events.ts';
import { enabledEndpoints } from './sql-webhook-store.ts';
import { recordEvent } from './record-event.ts';
import { callbackEndpointId, eventId } from './webhook-ids.ts';
import {
  noTracing,
  parseTraceContext,
  storedTraceContext,
  traceIdOf,
  type Tracing,
} from '../observability/tracing/tracing.ts';

export interface OutboxOptions {
  maxAttempts: number;
  clock: () => number;
  /**
   * The `data` of a task's event, frozen into its body in the transaction of the change (the
   * composition renders the task as its family's poll does); by default only the task's id.
   */
  render?: (task: Task) => Record<string, unknown>;
  /** The sealed secret that signs an account's per-request callbacks; without it they are not kept. */
  callbackSecret?: (accountId: string) => string;
  /** With tracing on, each event keeps the trace it belongs to, for its deliveries to continue. */
  tracing?: Tracing;
}

/**
 * The event log and the outbox writer (docs/architecture.md, invariant 8). In the transaction of a
 * task's final change, when someone listens for it (listenersOf): the event, its body frozen (every delivery, retry and
 * recovery sends these
 * bytes, whatever happens to the task, its links or its keys later), and one delivery row per
 * endpoint of the account subscribed to it, plus the task's own callback if it has one. Rows per
 * endpoint, not one event row fanned out later: each endpoint has its own attempts, schedule and
 * state to show, the dispatcher claims one table like the task queue, and the endpoints that get
 * an event are those subscribed when it happened (others get it by `recover`).
 */
export function webhookOutbox(options: OutboxOptions): TransitionEffects {
  const tracing = options.tracing ?? noTracing;
  return {
    // A submit with a callback URL stores it as an endpoint of that task alone, in the insert's transaction.
    async created(trx, task) {
      const url = task.params.callbackUrl;
      if (!url || !options.callbackSecret) return;
      await trx
        .insertInto('webhook_endpoints')
        .values({
          id: callbackEndpointId(task.id),
          account_id: task.accountId,
          url,
          events: JSON.stringify(TASK_EVENT_TYPES),
          secret: options.callbackSecret(task.accountId),
          previous_secret: null,
          previous_secret_until: null,
          status: 'enabled',
          disabled_reason: null,
          disabled_by: null,
          enabled_at: task.createdAt,
          created_at: task.createdAt,
          deleted_at: null,
          task_id: task.id,
          audience: 'account',
        })
        .execute();
    },
    // Read by the statement that finishes the task: a task nobody listens for (an account without
    // endpoints, no callback: most) costs no query here, and its completion commits alone.
    finishedLookups: (eb) => ({
      watched: eb.exists(listenersOf(eb)),
      endpoints: eb.exists(enabledEndpointsOf(eb)),
      // Read only with tracing on: off, the statement that finishes a task returns nothing more.
      ...(tracing.enabled ? { trace: eb.ref('tasks.trace_context') } : {}),
    }),
    idleOnCompletion: (eb) => eb.not(eb.exists(listenersOf(eb))),

    async finished(trx, finished: Task, looked) {
      const type = eventTypeOf(finished.status);
      // EXISTS is a boolean on PostgreSQL, 0 or 1 on SQLite.
      if (!type || !Number(looked.watched)) return;
      // As it is now in this transaction: effects before this one (the ledger's price) wrote to it.
      const task = options.render ? ((await reread(trx, finished.id)) ?? finished) : finished;
      const now = options.clock();
      // One event id for all endpoints: the same event, whoever receives it.
      const id = eventId(now);
      const data = options.render?.(task) ?? { id: task.id };
      const body = JSON.stringify({ id, type, created_at: Math.floor(now / 1000), data });
      const traceContext = tracing.enabled ? eventTrace(tracing, looked.trace as string | null) : null;
      const subscribed = Number(looked.endpoints)
        ? (await enabledEndpoints(trx, task.accountId)).filter((e) => e.events.includes(type)).map((e) => e.id)
        : [];
      if (task.params.callbackUrl && options.callbackSecret) subscribed.push(callbackEndpointId(task.id));
      const event = { id, accountId: task.accountId, type, taskId: task.id, createdAt: now, body, traceContext };
      await recordEvent(trx, event, subscribed, options.maxAttempts);
    },
  };
}

/**
 * The trace an event joins: the task's own. Inside it (the worker's completion or failure) the span
 * active now, so the deliveries hang under the step that caused them; elsewhere (a cancel from an
 * API request, the reaper, the retention sweep) the trace the task was submitted in. A task
 * submitted while tracing was off has none: the span active now, if any.
 */
function eventTrace(tracing: Tracing, submitted: string | null): string | null {
  const active = tracing.headers();
  const task = parseTraceContext(submitted);
  if (!task.traceparent || traceIdOf(active.traceparent) === traceIdOf(task.traceparent))
    return storedTraceContext(active);
  return submitted;
}

async function reread(trx: Kysely<Database>, id: string): Promise<Task | undefined> {
  const row = await trx.selectFrom('tasks').select(TASK_COLUMNS).where('id', '=', id).executeTakeFirst();
  return row && toTask(row);
}

/**
 * Whoever may want the task's events: an endpoint its account has or had (enabled, disabled: what
 * ends while it is disabled is recovered later; or deleted: `webhooks listen` sessions replay what
 * happened between them), or the task's own callback; never the operator's endpoint, which gets
 * account events only. Only then is an event recorded: the event log holds the events of accounts
 * that use webhooks, from their first endpoint on.
 */
function listenersOf(eb: ExpressionBuilder<Database, 'tasks'>) {
  return eb
    .selectFrom('webhook_endpoints')
    .select('webhook_endpoints.id')
    .whereRef('webhook_endpoints.account_id', '=', 'tasks.account_id')
    .where('webhook_endpoints.audience', '=', 'account')
    .where((w) =>
      w.or([w('webhook_endpoints.task_id', 'is', null), w('webhook_endpoints.task_id', '=', w.ref('tasks.id'))]),
    );
}

/** The account's own enabled endpoints (not per-request callbacks), as a subquery over the task's row. */
function enabledEndpointsOf(eb: ExpressionBuilder<Database, 'tasks'>) {
  return eb
    .selectFrom('webhook_endpoints')
    .select('webhook_endpoints.id')
    .whereRef('webhook_endpoints.account_id', '=', 'tasks.account_id')
    .where('webhook_endpoints.task_id', 'is', null)
    .where('webhook_endpoints.audience', '=', 'account')
    .where('webhook_endpoints.status', '=', 'enabled')
    .where('webhook_endpoints.deleted_at', 'is', null);
}
