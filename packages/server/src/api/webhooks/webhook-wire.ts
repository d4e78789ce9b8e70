import type { WebhookDelivery as DeliverySchema, WebhookEndpoint as EndpointSchema } from '@vidgen/protocol';
import type { WebhookDelivery, WebhookEndpoint } from '../../webhooks/webhook-events.ts';
import { readPage } from '../pages.ts';

const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));

/** An endpoint as `/v1/webhooks` shows it (and `/admin/v1/webhooks`, with more): never a secret. */
export function toEndpoint(e: WebhookEndpoint): EndpointSchema {
  return {
    id: e.id,
    object: 'webhook_endpoint',
    url: e.url,
    events: e.events,
    status: e.status,
    disabled_reason: e.disabledReason,
    disabled_by: e.disabledBy,
    created_at: Math.floor(e.createdAt / 1000),
    previous_secret_expires_at: seconds(e.previousSecretUntil),
  };
}

export function toDelivery(d: WebhookDelivery): DeliverySchema {
  return {
    id: d.id,
    object: 'webhook_delivery',
    event_id: d.eventId,
    event_type: d.eventType,
    task_id: d.taskId,
    status: d.status,
    attempts: d.attempts,
    next_attempt_at: d.status === 'pending' ? seconds(d.nextAttemptAt) : null,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    created_at: Math.floor(d.createdAt / 1000),
    delivered_at: seconds(d.deliveredAt),
  };
}

/** One page of an endpoint's deliveries, newest first (`?limit=` 1–100, default 20; `?after=` a delivery id). */
export function deliveryPage(
  query: { limit?: string; after?: string },
  fetch: (query: { limit: number; after?: string }) => Promise<WebhookDelivery[]>,
) {
  return readPage(query, fetch, toDelivery);
}
