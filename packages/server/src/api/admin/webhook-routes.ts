import type { FastifyInstance } from 'fastify';
import {
  AdminWebhookEndpoint,
  AdminWebhookEndpointList,
  AdminWebhookQuery,
  WebhookDeliveryList,
  WebhookDeliveryListQuery,
  WebhookUpdateBody,
  type Static,
} from '@vidgen/protocol';
import type { AccountStore } from '../../store/account-store.ts';
import type { OperatorReads } from '../../store/operator-reads.ts';
import type { WebhookService } from '../../webhooks/webhook-service.ts';
import type { WebhookEndpoint } from '../../webhooks/webhook-events.ts';
import { NotFound } from '../../errors.ts';
import { idParams } from '../route-schemas.ts';
import { pageLimitOf, pageOf } from '../pages.ts';
import { deliveryPage, toEndpoint } from '../webhooks/webhook-wire.ts';
import { noWebhookEndpoint, type AdminRoute } from './admin-route.ts';

type Counted = WebhookEndpoint & { deliveries: AdminWebhookEndpoint['deliveries'] };

/**
 * Every account's webhook endpoints for the operator: listed with their account and
 * deliveries by status, and switched on or off. The operator's disable is one the account cannot undo.
 */
export function registerAdminWebhookRoutes(
  app: FastifyInstance,
  deps: { route: AdminRoute; accounts: AccountStore; webhooks?: WebhookService; reads: OperatorReads },
): void {
  const { route, accounts, webhooks } = deps;
  // Endpoints belong to an account's internal id; the admin API names accounts by name.
  const toAdmin = (e: Counted, names: Map<string, string>): AdminWebhookEndpoint => ({
    ...toEndpoint(e),
    account: names.get(e.accountId) ?? e.accountId,
    deliveries: e.deliveries,
  });
  const adminPage = async (endpoints: Counted[], limit: number) => {
    const names = await accounts.accountNames([...new Set(endpoints.map((e) => e.accountId))]);
    return pageOf(endpoints, limit, (e) => toAdmin(e, names));
  };

  app.get<{ Querystring: Static<typeof AdminWebhookQuery> }>(
    '/admin/v1/webhooks',
    route(
      'adminListWebhooks',
      'Webhook endpoints of every account (`?account=` for one), oldest first, a page at a time, with their ' +
        'deliveries by status (`order=failing`: those with failed deliveries first); never a secret',
      { querystring: AdminWebhookQuery },
      AdminWebhookEndpointList,
      'A page of endpoints',
    ),
    async (request) => {
      const { account: name, after } = request.query;
      const limit = pageLimitOf(request.query.limit);
      const account = name === undefined ? undefined : await accounts.findAccountByName(name);
      if (name !== undefined && !account) throw new NotFound('account', name, 'account');
      if (webhooks && request.query.order === 'failing') return failingFirst(webhooks, account?.id, limit);
      const endpoints = webhooks
        ? await webhooks.listEndpoints(account?.id, { limit: limit + 1, after: after || undefined })
        : [];
      return adminPage(endpoints, limit);
    },
  );

  // One page: the endpoints with the most failed deliveries, then the oldest of the rest.
  const failingFirst = async (webhooks: WebhookService, accountId: string | undefined, limit: number) => {
    const failing = (await deps.reads.failingEndpoints(limit * 4)).map((f) => f.endpointId);
    const counted = (await webhooks.countedEndpoints(failing)).filter(
      (e) => (accountId === undefined || e.accountId === accountId) && e.audience === 'account',
    );
    const rest = (await webhooks.listEndpoints(accountId, { limit })).filter((e) => !failing.includes(e.id));
    const page = [...counted, ...rest].slice(0, limit);
    return { ...(await adminPage(page, limit)), has_more: false, last_id: null };
  };

  app.patch<{ Params: { id: string }; Body: WebhookUpdateBody }>(
    '/admin/v1/webhooks/:id',
    route(
      'adminUpdateWebhook',
      "Enable or disable any account's webhook endpoint (an operator's disable is one the account cannot undo)",
      { params: idParams('id'), body: WebhookUpdateBody },
      AdminWebhookEndpoint,
      'The endpoint',
    ),
    async (request) => {
      if (!webhooks) throw noWebhookEndpoint(request.params.id);
      const endpoint = await webhooks.setEnabledByOperator(request.params.id, request.body.enabled);
      const [counted] = (await webhooks.listEndpoints(endpoint.accountId, { limit: 100 })).filter(
        (e) => e.id === endpoint.id,
      );
      return toAdmin(
        counted ?? { ...endpoint, deliveries: { pending: 0, delivered: 0, failed: 0, canceled: 0 } },
        await accounts.accountNames([endpoint.accountId]),
      );
    },
  );

  app.get<{ Params: { id: string }; Querystring: { limit?: string; after?: string } }>(
    '/admin/v1/webhooks/:id/deliveries',
    route(
      'adminListWebhookDeliveries',
      "Any account's endpoint's deliveries, newest first: status, attempts, last response code and error",
      { params: idParams('id'), querystring: WebhookDeliveryListQuery },
      WebhookDeliveryList,
      'A page of deliveries',
    ),
    async (request) => {
      if (!webhooks) throw noWebhookEndpoint(request.params.id);
      return deliveryPage(request.query, (query) => webhooks.deliveriesByOperator(request.params.id, query));
    },
  );
}
