import type { ExpressionBuilder } from 'kysely';
import type { Task } from '../domain/task.ts';
import type { Database } from '../store/sql/schema.ts';
import type { TransitionEffects } from '../store/sql/transition-effects.ts';
import { eventTypeOf } from './webhook-events.ts';
import { enabledEndpoints, insertDeliveries } from './sql-webhook-store.ts';
import { deliveryId, eventId } from './webhook-ids.ts';

/**
 * The outbox writer (invariant 8, docs/architecture.md): in the transaction of a task's final change, one
 * delivery row per endpoint of the account subscribed to the event. Rows per endpoint, not one
 * event row fanned out later: each endpoint has its own attempts, schedule and state to show,
 * the dispatcher claims one table like the task queue, and the endpoints that get an event are
 * those subscribed when it happened (one registered later is not sent an older event).
 */
export function webhookOutbox(options: { maxAttempts: number; clock: () => number }): TransitionEffects {
  return {
    // Read by the statement that finishes the task: an account without an endpoint (most) costs no query here.
    finishedLookups: (eb) => ({ endpoints: eb.exists(enabledEndpointsOf(eb)) }),
    idleOnCompletion: (eb) => eb.not(eb.exists(enabledEndpointsOf(eb))),

    async finished(trx, task: Task, looked) {
      const type = eventTypeOf(task.status);
      // EXISTS is a boolean on PostgreSQL, 0 or 1 on SQLite.
      if (!type || !Number(looked.endpoints)) return;
      const endpoints = (await enabledEndpoints(trx, task.accountId)).filter((e) => e.events.includes(type));
      if (endpoints.length === 0) return;
      const now = options.clock();
      // One event id for all endpoints: the same event, whoever receives it.
      const event = eventId(now);
      await insertDeliveries(
        trx,
        endpoints.map((e) => ({
          id: deliveryId(now),
          eventId: event,
          endpointId: e.id,
          accountId: task.accountId,
          eventType: type,
          taskId: task.id,
          createdAt: now,
          maxAttempts: options.maxAttempts,
        })),
        now,
      );
    },
  };
}

/** The enabled endpoints of the task's account, as a subquery over the task's row. */
function enabledEndpointsOf(eb: ExpressionBuilder<Database, 'tasks'>) {
  return eb
    .selectFrom('webhook_endpoints')
    .select('webhook_endpoints.id')
    .whereRef('webhook_endpoints.account_id', '=', 'tasks.account_id')
    .where('webhook_endpoints.status', '=', 'enabled')
    .where('webhook_endpoints.deleted_at', 'is', null);
}
