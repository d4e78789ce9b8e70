import type { FastifyInstance } from 'fastify';
import {
  AdminDeliveryList,
  AdminDeliveryQuery,
  WebhookDelivery as WebhookDeliverySchema,
  WebhookRecoverBody,
  WebhookRecovery,
  type Static,
} from '@vidgen/protocol';
import type { AccountStore } from '../../store/account-store.ts';
import type { OperatorReads } from '../../store/operator-reads.ts';
import type { WebhookService } from '../../webhooks/webhook-service.ts';
import { ApiError } from '../../errors.ts';
import { pageLimitOf, pageOf } from '../pages.ts';
import { idParams } from '../route-schemas.ts';
import { timeOf } from '../webhooks/event-routes.ts';
import { toDelivery } from '../webhooks/webhook-wire.ts';
import { noWebhookEndpoint, type AdminRoute } from './admin-route.ts';

const noDelivery = (id: string) =>
  new ApiError(404, 'not_found_error', 'webhook_delivery_not_found', `No webhook delivery found with id '${id}'.`);

/**
 * Deliveries across accounts for the operator: those in a status (failed ones, to resend), a resend
 * of one, and a recovery for one endpoint since a time. Each runs as the endpoint's own account's
 * would (webhook-service.ts): a disabled endpoint is 409, a deleted one 404.
 */
export function registerAdminDeliveryRoutes(
  app: FastifyInstance,
  deps: { route: AdminRoute; reads: OperatorReads; accounts: AccountStore; webhooks?: WebhookService },
): void {
  const { route, reads, accounts, webhooks } = deps;

  app.get<{ Querystring: Static<typeof AdminDeliveryQuery> }>(
    '/admin/v1/deliveries',
    route(
      'adminListDeliveries',
      "Every account's webhook deliveries in one status (`status=failed`), newest first, a page at a time",
      { querystring: AdminDeliveryQuery },
      AdminDeliveryList,
      'A page of deliveries with their endpoint and account',
    ),
    async (request) => {
      const limit = pageLimitOf(request.query.limit);
      if (!webhooks) return pageOf([], limit, (x: { id: string }) => x);
      const refs = await reads.deliveryIds({
        status: request.query.status,
        after: request.query.after || undefined,
        limit: limit + 1,
      });
      const found = await Promise.all(refs.map((r) => webhooks.deliveryOf(r.endpointId, r.id)));
      const names = await accounts.accountNames([...new Set(found.map((f) => f.endpoint.accountId))]);
      return pageOf(found, limit, ({ delivery, endpoint }) => ({
        ...toDelivery(delivery),
        endpoint_id: endpoint.id,
        account: names.get(endpoint.accountId) ?? endpoint.accountId,
        url: endpoint.url,
      }));
    },
  );

  app.post<{ Params: { id: string } }>(
    '/admin/v1/deliveries/:id/resend',
    route(
      'adminResendDelivery',
      "Send any account's delivery again now (its endpoint must be enabled), with the same event id and body",
      { params: idParams('id') },
      WebhookDeliverySchema,
      'The delivery, pending again',
    ),
    async (request) => {
      const ref = webhooks && (await reads.deliveryRef(request.params.id));
      if (!webhooks || !ref) throw noDelivery(request.params.id);
      const owner = await webhooks.ownerOf(ref.endpointId);
      return toDelivery(await webhooks.retry(owner, ref.endpointId, ref.id));
    },
  );

  app.post<{ Params: { id: string }; Body: WebhookRecoverBody }>(
    '/admin/v1/webhooks/:id/recover',
    route(
      'adminRecoverWebhook',
      "Queue every event since a time that any account's endpoint missed (each once)",
      { params: idParams('id'), body: WebhookRecoverBody },
      WebhookRecovery,
      'How many events were queued',
    ),
    async (request) => {
      if (!webhooks) throw noWebhookEndpoint(request.params.id);
      const { since, until } = request.body;
      const range = {
        since: timeOf(since, 'since'),
        ...(until === undefined ? {} : { until: timeOf(until, 'until') }),
      };
      const owner = await webhooks.ownerOf(request.params.id);
      const queued = await webhooks.recover(owner, request.params.id, range);
      return { object: 'webhook_recovery' as const, endpoint_id: request.params.id, queued };
    },
  );
}
