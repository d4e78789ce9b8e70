import type { FastifyInstance } from 'fastify';
import {
  AdminWebhookEndpoint, AdminWebhookEndpointList, AdminWebhookQuery, WebhookDeliveryList, WebhookDeliveryListQuery, WebhookUpdateBody, type Static,
} from '@vidgen/protocol';
import type { AccountStore } from '../../store/account-store.ts';
import type { WebhookService } from '../../webhooks/webhook-service.ts';
import type { WebhookEndpoint } from '../../webhooks/webhook-events.ts';
import { ApiError, NotFound } from '../../errors.ts';
import { idParams } from '../route-schemas.ts';
import { deliveryPage, toEndpoint } from '../webhooks/webhook-wire.ts';
import type { AdminRoute } from './admin-route.ts';

type Counted = WebhookEndpoint & { deliveries: AdminWebhookEndpoint['deliveries'] };

/**
 * Every account's webhook endpoints for the operator (issue 13): listed with their account and
 * deliveries by status, and switched on or off. The operator's disable is one the account cannot undo.
 */
export function registerAdminWebhookRoutes(app: FastifyInstance, deps: { route: AdminRoute; accounts: AccountStore; webhooks?: WebhookService }): void {
  const { route, accounts, webhooks } = deps;
  // Endpoints belong to an account's internal id; the admin API names accounts by name.
  const names = async () => new Map((await accounts.listAccounts()).map((a) => [a.id, a.name]));
  const toAdmin = (e: Counted, name: string | undefined): AdminWebhookEndpoint => ({ ...toEndpoint(e), account: name ?? e.accountId, deliveries: e.deliveries });

  app.get<{ Querystring: Static<typeof AdminWebhookQuery> }>('/admin/v1/webhooks',
    route('adminListWebhooks', "Webhook endpoints of every account (`?account=` for one), with their deliveries by status; never a secret", { querystring: AdminWebhookQuery }, AdminWebhookEndpointList, 'Endpoints, oldest first'),
    async (request) => {
      const name = request.query.account;
      const account = name === undefined ? undefined : await accounts.findAccountByName(name);
      if (name !== undefined && !account) throw new NotFound('account', name, 'account');
      const endpoints = webhooks ? await webhooks.listEndpoints(account?.id) : [];
      const byId = await names();
      return { object: 'list' as const, data: endpoints.map((e) => toAdmin(e, byId.get(e.accountId))) };
    });

  app.patch<{ Params: { id: string }; Body: WebhookUpdateBody }>('/admin/v1/webhooks/:id',
    route('adminUpdateWebhook', 'Enable or disable any account\'s webhook endpoint (an operator\'s disable is one the account cannot undo)', { params: idParams('id'), body: WebhookUpdateBody }, AdminWebhookEndpoint, 'The endpoint'),
    async (request) => {
      if (!webhooks) throw new ApiError(404, 'not_found_error', 'webhook_not_found', `No webhook endpoint found with id '${request.params.id}'.`);
      const endpoint = await webhooks.setEnabledByOperator(request.params.id, request.body.enabled);
      const [counted] = (await webhooks.listEndpoints(endpoint.accountId)).filter((e) => e.id === endpoint.id);
      return toAdmin(counted ?? { ...endpoint, deliveries: { pending: 0, delivered: 0, failed: 0, canceled: 0 } }, (await names()).get(endpoint.accountId));
    });

  app.get<{ Params: { id: string }; Querystring: { limit?: string; after?: string } }>('/admin/v1/webhooks/:id/deliveries',
    route('adminListWebhookDeliveries', "Any account's endpoint's deliveries, newest first: status, attempts, last response code and error", { params: idParams('id'), querystring: WebhookDeliveryListQuery }, WebhookDeliveryList, 'A page of deliveries'),
    async (request) => {
      if (!webhooks) throw new ApiError(404, 'not_found_error', 'webhook_not_found', `No webhook endpoint found with id '${request.params.id}'.`);
      return deliveryPage(request.query, (query) => webhooks.deliveriesByOperator(request.params.id, query));
    });
}
