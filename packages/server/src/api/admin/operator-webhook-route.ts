import type { FastifyInstance } from 'fastify';
import { OperatorDeliveryListQuery, OperatorWebhookObject, WebhookDeliveryList, type Static } from '@vidgen/protocol';
import type { AccountStore } from '../../store/account-store.ts';
import type { WebhookService } from '../../webhooks/webhook-service.ts';
import { NotFound } from '../../errors.ts';
import { deliveryPage } from '../webhooks/webhook-wire.ts';
import type { AdminRoute } from './admin-route.ts';

/** The operator's webhook as this process is configured (VIDGEN_OPERATOR_WEBHOOK_URL). */
export interface OperatorWebhookView {
  url: string | null;
  allowPrivate: boolean;
  /** webhooks/operator-webhook.ts */
  secret: string;
}

/**
 * `GET /admin/v1/operator-webhook`: the operator learns the secret that signs its balance alerts
 * here, behind the admin token, rather than from a log line; and sees, per account, how their
 * deliveries went.
 */
export function registerOperatorWebhookRoutes(
  app: FastifyInstance,
  deps: { route: AdminRoute; accounts: AccountStore; webhooks?: WebhookService; operatorWebhook?: OperatorWebhookView },
): void {
  app.get(
    '/admin/v1/operator-webhook',
    deps.route(
      'adminGetOperatorWebhook',
      "The operator's webhook of every account's `account.balance_low` events, with the secret that signs them",
      {},
      OperatorWebhookObject,
      'Its URL, address rule and signing secret',
    ),
    async (): Promise<OperatorWebhookObject> => ({
      object: 'operator_webhook',
      url: deps.operatorWebhook?.url ?? null,
      allow_private_urls: deps.operatorWebhook?.allowPrivate ?? false,
      secret: deps.operatorWebhook?.secret ?? null,
    }),
  );

  app.get<{ Querystring: Static<typeof OperatorDeliveryListQuery> }>(
    '/admin/v1/operator-webhook/deliveries',
    deps.route(
      'adminListOperatorWebhookDeliveries',
      "One account's events sent to the operator's webhook, newest first: status, attempts, last answer",
      { querystring: OperatorDeliveryListQuery },
      WebhookDeliveryList,
      'A page of deliveries',
    ),
    async (request) => {
      const account = await deps.accounts.findAccountByName(request.query.account);
      if (!account) throw new NotFound('account', request.query.account, 'account');
      const webhooks = deps.webhooks;
      return deliveryPage(request.query, async (query) =>
        webhooks ? webhooks.operatorDeliveries(account.id, query) : [],
      );
    },
  );
}
