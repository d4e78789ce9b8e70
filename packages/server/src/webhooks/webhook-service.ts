import { ApiError, Conflict, InvalidRequest } from '../errors.ts';
import {
  TEST_EVENT_TYPE,
  WEBHOOK_EVENT_TYPES,
  isEventType,
  BATCH_EVENT_TYPES,
  BATCH_EVENTS_WILDCARD,
  type DeliveryStatus,
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookEventType,
} from './webhook-events.ts';
import type { EndpointSwitch, WebhookStore } from './webhook-store.ts';
import type { SecretBox } from './secret-box.ts';
import { newWebhookSecret } from './webhook-signing.ts';
import { checkWebhookUrl } from './webhook-url.ts';
import { deliveryId, endpointId, eventId, operatorEndpointId } from './webhook-ids.ts';
import type { EventLog, EventQuery, StoredEvent } from './event-log.ts';
import type { CallbackSecrets } from './callback-secret.ts';

/** How long the secret before a rotation still signs, beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 3600_000;
const MAX_ENDPOINTS_PER_ACCOUNT = 20;

export interface WebhookServiceDeps {
  store: WebhookStore;
  box: SecretBox;
  allowPrivateUrls: boolean;
  maxAttempts: number;
  clock: () => number;
  /** The account's events with their frozen bodies: listed, recovered, and written for tests. */
  events?: EventLog;
  /** Per-request callbacks' signing secrets. */
  callbacks?: CallbackSecrets;
}

/** Endpoints of an account and their deliveries, in domain words; the routes translate. */
export class WebhookService {
  constructor(private readonly deps: WebhookServiceDeps) {}

  async register(
    accountId: string,
    input: { url: string; events?: string[] },
  ): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    const events = eventsOf(input.events);
    const url = await checkWebhookUrl(input.url, this.deps.allowPrivateUrls);
    if ((await this.deps.store.listEndpoints(accountId)).length >= MAX_ENDPOINTS_PER_ACCOUNT) {
      throw new Conflict(
        'webhook_limit_reached',
        `An account may have at most ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints; delete one first.`,
      );
    }
    const secret = newWebhookSecret();
    const endpoint = await this.deps.store.insertEndpoint({
      id: endpointId(),
      accountId,
      url,
      events,
      secret: this.deps.box.seal(secret),
      createdAt: this.deps.clock(),
    });
    return { endpoint, secret };
  }

  list(accountId: string): Promise<WebhookEndpoint[]> {
    return this.deps.store.listEndpoints(accountId);
  }

  /** A page of every account's endpoints (or one account's) with their deliveries by status: for the admin API. */
  async listEndpoints(
    accountId: string | undefined,
    page: { limit: number; after?: string },
  ): Promise<Array<WebhookEndpoint & { deliveries: Record<DeliveryStatus, number> }>> {
    const endpoints = await this.deps.store.listEndpoints(accountId, page);
    const counts = await this.deps.store.deliveryCounts(endpoints.map((e) => e.id));
    return endpoints.map((e) => ({ ...e, deliveries: counts.get(e.id)! }));
  }

  /** These endpoints (any account's, in this order; unknown ids left out) with their deliveries by status. */
  async countedEndpoints(
    ids: readonly string[],
  ): Promise<Array<WebhookEndpoint & { deliveries: Record<DeliveryStatus, number> }>> {
    const [endpoints, counts] = await Promise.all([
      Promise.all(ids.map((id) => this.deps.store.endpointById(id))),
      this.deps.store.deliveryCounts(ids),
    ]);
    return endpoints.flatMap((e) => (e ? [{ ...e, deliveries: counts.get(e.id)! }] : []));
  }

  /**
   * The account's own switch (Stripe's and Svix's `disabled` flag on an endpoint update): it may
   * re-enable an endpoint it or the server (after a 410) disabled, never one the operator
   * disabled. Events from while it was disabled are not sent; retry them one by one.
   */
  async setEnabled(accountId: string, id: string, enabled: boolean): Promise<WebhookEndpoint> {
    const endpoint = await this.get(accountId, id);
    // Disabling twice keeps the first reason (a 410, or the operator's).
    if (!enabled && endpoint.status === 'disabled') return endpoint;
    const switched = await this.deps.store.switchEndpoint(
      accountId,
      id,
      enabled
        ? { enabled: true, by: 'account', now: this.deps.clock() }
        : { enabled: false, by: 'account', reason: 'Disabled by the account.' },
    );
    if (switched) return switched;
    const now = await this.get(accountId, id);
    throw new Conflict(
      'webhook_disabled_by_operator',
      `Webhook endpoint '${id}' was disabled by the operator (${now.disabledReason}); only the operator can enable it.`,
    );
  }

  /** The operator's switch (admin API), on any account's endpoint; it overrides every other. */
  async setEnabledByOperator(id: string, enabled: boolean): Promise<WebhookEndpoint> {
    const endpoint = await this.deps.store.endpointById(id);
    const change: EndpointSwitch = enabled
      ? { enabled: true, by: 'operator', now: this.deps.clock() }
      : { enabled: false, by: 'operator', reason: 'Disabled by the operator.' };
    const switched = endpoint && (await this.deps.store.switchEndpoint(endpoint.accountId, id, change));
    if (!switched) throw notFound('webhook', id);
    return switched;
  }

  async get(accountId: string, id: string): Promise<WebhookEndpoint> {
    const endpoint = await this.deps.store.getEndpoint(accountId, id);
    if (!endpoint) throw notFound('webhook', id);
    return endpoint;
  }

  async delete(accountId: string, id: string): Promise<void> {
    if (!(await this.deps.store.deleteEndpoint(accountId, id, this.deps.clock()))) throw notFound('webhook', id);
  }

  async rotateSecret(accountId: string, id: string): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    const secret = newWebhookSecret();
    const endpoint = await this.deps.store.rotateSecret(
      accountId,
      id,
      this.deps.box.seal(secret),
      this.deps.clock() + ROTATION_OVERLAP_MS,
    );
    if (!endpoint) throw notFound('webhook', id);
    return { endpoint, secret };
  }

  /** Queues a `webhook.test` event for the endpoint (whatever it subscribed to). */
  async sendTest(accountId: string, id: string): Promise<WebhookDelivery> {
    const endpoint = await this.enabled(accountId, id);
    const now = this.deps.clock();
    const event = eventId(now);
    // Frozen like a task's event: every attempt sends these bytes.
    const body = JSON.stringify({
      id: event,
      type: TEST_EVENT_TYPE,
      created_at: Math.floor(now / 1000),
      data: { id: endpoint.id },
    });
    await this.deps.events?.append({ id: event, accountId, type: TEST_EVENT_TYPE, taskId: null, createdAt: now, body });
    const delivery = {
      id: deliveryId(now),
      eventId: event,
      endpointId: endpoint.id,
      accountId,
      eventType: TEST_EVENT_TYPE,
      taskId: null,
      createdAt: now,
      maxAttempts: this.deps.maxAttempts,
    };
    await this.deps.store.enqueue([delivery], now);
    return (await this.deps.store.getDelivery(endpoint.id, delivery.id))!;
  }

  async deliveries(
    accountId: string,
    id: string,
    query: { limit: number; after?: string },
  ): Promise<WebhookDelivery[]> {
    await this.get(accountId, id);
    return this.deps.store.listDeliveries(id, query);
  }

  /** Any account's endpoint's deliveries, for the operator (deleted endpoints' too: they explain what happened). */
  async deliveriesByOperator(id: string, query: { limit: number; after?: string }): Promise<WebhookDelivery[]> {
    if (!(await this.deps.store.endpointById(id))) throw notFound('webhook', id);
    return this.deps.store.listDeliveries(id, query);
  }

  /** The deliveries of the account's events to the operator's webhook, newest first (none before its first alert). */
  operatorDeliveries(accountId: string, query: { limit: number; after?: string }): Promise<WebhookDelivery[]> {
    return this.deps.store.listDeliveries(operatorEndpointId(accountId), query);
  }

  async retry(accountId: string, id: string, delivery: string): Promise<WebhookDelivery> {
    await this.enabled(accountId, id);
    const retried = await this.deps.store.retryDelivery(id, delivery, this.deps.clock());
    if (!retried) throw notFound('webhook_delivery', delivery);
    return retried;
  }

  /** The account's events, newest first, as they were sent (their frozen bodies). */
  async listEvents(accountId: string, query: EventQuery): Promise<StoredEvent[]> {
    if (query.type !== undefined && !isEventType(query.type) && query.type !== TEST_EVENT_TYPE) {
      throw new InvalidRequest(
        'invalid_value',
        `\`type\` must be one of ${[...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE].join(', ')}.`,
        'type',
      );
    }
    return this.log().list(accountId, query);
  }

  /**
   * Svix's recover-since: queues, for the endpoint, every event from `since` (to `until`) of the types
   * it subscribes to that it did not receive: those that happened while it was disabled or before it
   * existed, and those whose delivery failed or was canceled. Each once: delivered or pending ones
   * are left as they are, so recovering twice sends nothing twice. Returns how many were queued.
   */
  async recover(accountId: string, id: string, range: { since: number; until?: number }): Promise<number> {
    const endpoint = await this.enabled(accountId, id);
    if (range.until !== undefined && range.until <= range.since)
      throw new InvalidRequest('invalid_value', '`until` must be later than `since`.', 'until');
    return this.log().recover({
      endpointId: endpoint.id,
      accountId,
      types: endpoint.events,
      ...range,
      maxAttempts: this.deps.maxAttempts,
      now: this.deps.clock(),
    });
  }

  /** The secret that signs the account's per-request callbacks (`webhook_url` on a submit). */
  callbackSecret(accountId: string): string {
    if (!this.deps.callbacks) throw new Error('per-request callbacks are not configured');
    return this.deps.callbacks.of(accountId);
  }

  /**
   * The account an endpoint belongs to, for the operator's resend and recover: those then run as the
   * account's own would (an endpoint the account deleted, or a task's callback, is 404 to both).
   */
  async ownerOf(endpointId: string): Promise<string> {
    const endpoint = await this.deps.store.endpointById(endpointId);
    if (!endpoint) throw notFound('webhook', endpointId);
    return endpoint.accountId;
  }

  /** One delivery of any endpoint, with the endpoint (the operator's list of failed deliveries). */
  async deliveryOf(endpointId: string, id: string): Promise<{ delivery: WebhookDelivery; endpoint: WebhookEndpoint }> {
    const [delivery, endpoint] = await Promise.all([
      this.deps.store.getDelivery(endpointId, id),
      this.deps.store.endpointById(endpointId),
    ]);
    if (!delivery || !endpoint) throw notFound('webhook_delivery', id);
    return { delivery, endpoint };
  }

  private log(): EventLog {
    if (!this.deps.events) throw new Error('the event log is not configured');
    return this.deps.events;
  }

  private async enabled(accountId: string, id: string): Promise<WebhookEndpoint> {
    const endpoint = await this.get(accountId, id);
    if (endpoint.status !== 'enabled') {
      throw new Conflict(
        'webhook_disabled',
        `Webhook endpoint '${id}' is disabled (${endpoint.disabledReason ?? 'by the server'}); enable it first ` +
          `(PATCH {"enabled": true}).`,
      );
    }
    return endpoint;
  }
}

function eventsOf(events: string[] | undefined): WebhookEventType[] {
  if (events === undefined) return [...WEBHOOK_EVENT_TYPES];
  if (events.length === 0)
    throw new InvalidRequest('invalid_value', '`events` must name at least one event.', 'events');
  events.forEach((event, i) => {
    if (!isEventType(event) && event !== BATCH_EVENTS_WILDCARD) {
      throw new InvalidRequest(
        'invalid_value',
        `\`events[${i}]\` must be one of ${[...WEBHOOK_EVENT_TYPES, BATCH_EVENTS_WILDCARD].join(', ')}.`,
        `events[${i}]`,
      );
    }
  });
  // `batch.*` stands for every batch event, and is kept as them.
  return [
    ...new Set(events.flatMap((e) => (e === BATCH_EVENTS_WILDCARD ? BATCH_EVENT_TYPES : [e as WebhookEventType]))),
  ];
}

function notFound(what: 'webhook' | 'webhook_delivery', id: string): ApiError {
  const name = what === 'webhook' ? 'webhook endpoint' : 'webhook delivery';
  return new ApiError(404, 'not_found_error', `${what}_not_found`, `No ${name} found with id '${id}'.`);
}
