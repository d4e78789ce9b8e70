import type { TaskStatus } from '../domain/task.ts';

/** A task's events; OpenAI's names for the first two. A per-request callback gets these. */
export const TASK_EVENT_TYPES = ['video.completed', 'video.failed', 'video.canceled', 'video.expired'] as const;
/** An account's own events, made by a ledger entry rather than a task change (billing/balance-alerts.ts). */
export const BALANCE_LOW_EVENT_TYPE = 'account.balance_low';
/**
 * A batch's end (docs/batch.md): OpenAI's names, so `batch.cancelled` is spelled as OpenAI spells it,
 * where a task's event is `video.canceled`.
 */
export const BATCH_EVENT_TYPES = ['batch.completed', 'batch.failed', 'batch.expired', 'batch.cancelled'] as const;
/** What an endpoint's `events` may say for every batch event. */
export const BATCH_EVENTS_WILDCARD = 'batch.*';
/** The events an endpoint can subscribe to (every one by default). */
export const WEBHOOK_EVENT_TYPES = [...TASK_EVENT_TYPES, BALANCE_LOW_EVENT_TYPE, ...BATCH_EVENT_TYPES] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** Sent only by `POST /v1/webhooks/{id}/test`, whatever the endpoint subscribed to. */
export const TEST_EVENT_TYPE = 'webhook.test';

const BY_STATUS: Partial<Record<TaskStatus, WebhookEventType>> = {
  succeeded: 'video.completed',
  failed: 'video.failed',
  canceled: 'video.canceled',
  expired: 'video.expired',
};

/** The event a task's final change reports; undefined for a state that is not final. */
export function eventTypeOf(status: TaskStatus): WebhookEventType | undefined {
  return BY_STATUS[status];
}

export function isEventType(value: string): value is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}

export type EndpointStatus = 'enabled' | 'disabled';
/**
 * Whose endpoint it is: the account's own, or the operator's (VIDGEN_OPERATOR_WEBHOOK_URL), which
 * is kept as a row per account only so that its deliveries share the outbox; the account never sees it.
 */
export type EndpointAudience = 'account' | 'operator';
/** Who disabled an endpoint: the server (it answered 410 Gone), its account, or the operator. */
export type DisabledBy = 'server' | 'account' | 'operator';

export interface WebhookEndpoint {
  id: string;
  accountId: string;
  audience: EndpointAudience;
  url: string;
  events: WebhookEventType[];
  status: EndpointStatus;
  disabledReason: string | null;
  disabledBy: DisabledBy | null;
  createdAt: number;
  /** When it was created or last enabled again (epoch ms). */
  enabledAt: number;
  /** Encrypted (secret-box.ts); only the dispatcher opens it. */
  secret: string;
  previousSecret: string | null;
  /** Until when (epoch ms) the previous secret still signs, beside the current one. */
  previousSecretUntil: number | null;
}

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'canceled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One event for one endpoint: the outbox row and its delivery state. */
export interface WebhookDelivery {
  id: string;
  /** The `webhook-id` header: the same on every attempt (receivers deduplicate on it). */
  eventId: string;
  endpointId: string;
  accountId: string;
  eventType: string;
  taskId: string | null;
  createdAt: number;
  status: DeliveryStatus;
  /** Attempts started so far (one that a killed worker never finished counts too). */
  attempts: number;
  maxAttempts: number;
  nextAttemptAt: number;
  lastStatusCode: number | null;
  lastError: string | null;
  deliveredAt: number | null;
}

/** A delivery taken by one dispatcher; its end is written only while `token` still holds it. */

/** How an attempt ended, as the store records it. */
export type AttemptEnd =
  | { status: 'delivered'; statusCode: number; now: number }
  | { status: 'pending'; statusCode: number | null; error: string | null; nextAttemptAt: number }
  | { status: 'failed' | 'canceled'; statusCode: number | null; error: string | null };
