import type { FastifyInstance } from 'fastify';
import {
  CallbackSecret,
  EventList,
  EventListQuery,
  WebhookRecoverBody,
  WebhookRecovery,
  type EventObject,
} from '@vidgen/protocol';
import { InvalidRequest } from '../../errors.ts';
import type { StoredEvent } from '../../webhooks/event-log.ts';
import type { WebhookService } from '../../webhooks/webhook-service.ts';
import { callerOf } from '../authenticate.ts';
import { readPage } from '../pages.ts';
import { described, errorResponses, idParams } from '../route-schemas.ts';

const errors = errorResponses();

/**
 * The account's events (Stripe's `GET /v1/events`, with their frozen bodies), Svix's recover-since
 * for an endpoint, and the secret of per-request callbacks (Replicate's default webhook secret).
 */
export function registerEventRoutes(app: FastifyInstance, deps: { webhooks: WebhookService }): void {
  const { webhooks } = deps;
  const account = (request: Parameters<typeof callerOf>[0]) => callerOf(request).account.id;

  app.get<{ Querystring: EventListQuery }>(
    '/v1/events',
    {
      schema: {
        operationId: 'listEvents',
        summary: "The account's events, newest first, with the bodies their webhooks carried",
        tags: ['Events'],
        querystring: EventListQuery,
        response: { 200: described(EventList, 'A page of events'), ...errors },
      },
    },
    async (request) => {
      const { type, created_after } = request.query;
      const since = created_after === undefined ? undefined : (unixSeconds(created_after, 'created_after') + 1) * 1000;
      return readPage(
        request.query,
        (page) => webhooks.listEvents(account(request), { ...page, type, since }),
        toEventObject,
      );
    },
  );

  app.post<{ Params: { id: string }; Body: WebhookRecoverBody }>(
    '/v1/webhooks/:id/recover',
    {
      schema: {
        operationId: 'recoverWebhook',
        summary: 'Queue every event since a time that the endpoint missed (each once)',
        tags: ['Webhooks'],
        params: idParams('id'),
        body: WebhookRecoverBody,
        response: { 200: described(WebhookRecovery, 'How many events were queued'), ...errors },
      },
    },
    async (request) => {
      const { since, until } = request.body;
      const range = {
        since: timeOf(since, 'since'),
        ...(until === undefined ? {} : { until: timeOf(until, 'until') }),
      };
      const queued = await webhooks.recover(account(request), request.params.id, range);
      return { object: 'webhook_recovery' as const, endpoint_id: request.params.id, queued };
    },
  );

  app.get(
    '/v1/webhooks/default/secret',
    {
      schema: {
        operationId: 'getCallbackSecret',
        summary: 'The secret that signs per-request webhooks (`webhook_url` on a submit)',
        tags: ['Webhooks'],
        response: { 200: described(CallbackSecret, 'The secret'), ...errors },
      },
    },
    async (request) => ({ key: webhooks.callbackSecret(account(request)) }),
  );
}

/** The body as every delivery sent it, under `object: "event"`. */
function toEventObject(event: StoredEvent): EventObject & { id: string } {
  const body = JSON.parse(event.body) as { data: unknown };
  return {
    id: event.id,
    object: 'event',
    type: event.type,
    created_at: Math.floor(event.createdAt / 1000),
    data: body.data,
  };
}

function unixSeconds(value: string, field: string): number {
  if (!/^\d{1,12}$/.test(value)) throw new InvalidRequest('invalid_value', `\`${field}\` must be Unix seconds.`, field);
  return Number(value);
}

/** Unix seconds (a number or digits) or an RFC 3339 time, as epoch ms. */
export function timeOf(value: number | string, field: string): number {
  if (typeof value === 'number') return value * 1000;
  if (/^\d{1,12}$/.test(value)) return Number(value) * 1000;
  const ms = /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new InvalidRequest('invalid_value', `\`${field}\` must be Unix seconds or an RFC 3339 time.`, field);
  }
  return ms;
}
