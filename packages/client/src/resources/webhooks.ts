import type {
  RequestOptions,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
  WebhookRecovery,
} from '../types.ts';
import type { ClientCore } from './client-core.ts';

export interface WebhookCreateParams {
  url: string;
  /** Default: all of `video.completed`, `video.failed`, `video.canceled`, `video.expired`, `account.balance_low`. */
  events?: string[];
}

/** Webhook endpoints of the key's account (a vidgen extension). Verify deliveries with `verifyWebhook`. */
export class Webhooks {
  constructor(private readonly core: ClientCore) {}

  private call<T>(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    opts: RequestOptions,
    body?: unknown,
  ): Promise<T> {
    return this.core.transport
      .request<T>({ method, path, ...(body === undefined ? {} : { body }), ...opts })
      .then((r) => r.data);
  }

  /** The answer holds the signing secret; it is never shown again. */
  create(params: WebhookCreateParams, opts: RequestOptions = {}): Promise<WebhookEndpointWithSecret> {
    return this.call('POST', '/v1/webhooks', opts, params);
  }

  list(opts: RequestOptions = {}): Promise<{ object: 'list'; data: WebhookEndpoint[]; has_more: boolean }> {
    return this.call('GET', '/v1/webhooks', opts);
  }

  /**
   * `{ enabled: true }` enables an endpoint again (after a 410 disabled it, or its account did);
   * `{ enabled: false }` disables it and cancels its pending deliveries. An endpoint the operator
   * disabled stays disabled (409 `webhook_disabled_by_operator`).
   */
  update(id: string, params: { enabled: boolean }, opts: RequestOptions = {}): Promise<WebhookEndpoint> {
    return this.call('PATCH', `/v1/webhooks/${encodeURIComponent(id)}`, opts, params);
  }

  delete(id: string, opts: RequestOptions = {}): Promise<{ id: string; object: 'webhook_endpoint'; deleted: boolean }> {
    return this.call('DELETE', `/v1/webhooks/${encodeURIComponent(id)}`, opts);
  }

  /** A new secret; the previous one keeps signing beside it for 24 h. */
  rotateSecret(id: string, opts: RequestOptions = {}): Promise<WebhookEndpointWithSecret> {
    return this.call('POST', `/v1/webhooks/${encodeURIComponent(id)}/rotate-secret`, opts);
  }

  test(id: string, opts: RequestOptions = {}): Promise<WebhookDelivery> {
    return this.call('POST', `/v1/webhooks/${encodeURIComponent(id)}/test`, opts);
  }

  deliveries(
    id: string,
    opts: RequestOptions = {},
  ): Promise<{ object: 'list'; data: WebhookDelivery[]; has_more: boolean; last_id: string | null }> {
    return this.call('GET', `/v1/webhooks/${encodeURIComponent(id)}/deliveries`, opts);
  }

  /**
   * Queues for the endpoint every event from `since` (to `until`, default now) of the types it
   * subscribes to that it did not receive: those that ended while it was disabled, and deliveries
   * that failed or were canceled. Each once; delivered or pending ones are not sent again.
   * Times: Unix seconds, an RFC 3339 string or a Date.
   */
  recover(
    id: string,
    params: { since: number | string | Date; until?: number | string | Date },
    opts: RequestOptions = {},
  ): Promise<WebhookRecovery> {
    const wire = (t: number | string | Date) => (t instanceof Date ? Math.floor(t.getTime() / 1000) : t);
    const body = { since: wire(params.since), ...(params.until === undefined ? {} : { until: wire(params.until) }) };
    return this.call('POST', `/v1/webhooks/${encodeURIComponent(id)}/recover`, opts, body);
  }

  /**
   * The secret that signs the account's per-request webhooks (`webhook_url` on a submit):
   * verify them with `verifyWebhook(body, headers, key)`.
   */
  callbackSecret(opts: RequestOptions = {}): Promise<{ key: string }> {
    return this.call('GET', '/v1/webhooks/default/secret', opts);
  }

  retry(id: string, deliveryId: string, opts: RequestOptions = {}): Promise<WebhookDelivery> {
    return this.call(
      'POST',
      `/v1/webhooks/${encodeURIComponent(id)}/deliveries/${encodeURIComponent(deliveryId)}/retry`,
      opts,
    );
  }
}
