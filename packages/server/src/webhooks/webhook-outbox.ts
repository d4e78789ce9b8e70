import type { Task } from '../engine/task.ts';
import type { TransitionEffects } from '../store/sql/transition-effects.ts';
import { eventTypeOf } from './webhook-events.ts';
import { enabledEndpoints, insertDeliveries } from './sql-webhook-store.ts';
import { deliveryId, eventId } from './webhook-ids.ts';

/**
 * The outbox writer (DESIGN invariant 8): in the transaction of a task's final change, one
 * delivery row per endpoint of the account subscribed to the event. Rows per endpoint, not one
 * event row fanned out later: each endpoint has its own attempts, schedule and state to show,
 * the dispatcher claims one table like the task queue, and the endpoints that get an event are
 * those subscribed when it happened (one registered later is not sent an older event).
 */
export function webhookOutbox(options: { maxAttempts: number; clock: () => number }): TransitionEffects {
  return {
    async finished(trx, task: Task) {
      const type = eventTypeOf(task.status);
      if (!type) return;
      const endpoints = (await enabledEndpoints(trx, task.accountId)).filter((e) => e.events.includes(type));
      if (endpoints.length === 0) return;
      const now = options.clock();
      // One event id for all endpoints: the same event, whoever receives it.
      const event = eventId(now);
      await insertDeliveries(trx, endpoints.map((e) => ({
        id: deliveryId(now), eventId: event, endpointId: e.id, accountId: task.accountId, eventType: type, taskId: task.id,
        createdAt: now, maxAttempts: options.maxAttempts,
      })), now);
    },
  };
}
