import { Page } from '../core/page.ts';
import type { EventObject, ListResponse, RequestOptions } from '../types.ts';
import type { ClientCore } from './client-core.ts';

export interface EventListParams {
  /** 1–100, default 20. */
  limit?: number;
  /** An event id: the page of older events after it (`for await` over a page walks them all). */
  after?: string;
  /**
   * Only events of this type (`video.completed`, `video.failed`, `video.canceled`, `video.expired`,
   * `account.balance_low`, `webhook.test`).
   */
  type?: string;
  /** Unix seconds: only events made after it. */
  created_after?: number;
}

/**
 * The account's events, newest first, each with the body its webhook deliveries carried (frozen
 * when it happened), kept for the server's retention period (a vidgen extension, as Stripe's
 * `GET /v1/events`). What an endpoint missed can be sent again with `webhooks.recover`.
 */
export class Events {
  constructor(private readonly core: ClientCore) {}

  async list(params: EventListParams = {}, opts: RequestOptions = {}): Promise<Page<EventObject>> {
    const { data } = await this.core.transport.request<ListResponse<EventObject>>({
      method: 'GET',
      path: '/v1/events',
      query: { ...params },
      ...opts,
    });
    return new Page(data, (after) => this.list({ ...params, after }, opts));
  }
}
