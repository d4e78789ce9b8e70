import type { FastifyInstance } from 'fastify';
import {
  WebhookCreateBody,
  WebhookDeleted,
  WebhookDelivery as DeliverySchema,
  WebhookDeliveryList,
  WebhookDeliveryListQuery,
  WebhookEndpoint as EndpointSchema,
  WebhookEndpointList,
  WebhookEndpointWithSecret,
  WebhookUpdateBody,
} from '@vidgen/protocol';
import type { WebhookService } from '../../webhooks/webhook-service.ts';
import { deliveryPage, toDelivery, toEndpoint } from './webhook-wire.ts';
import { registerEventRoutes } from './event-routes.ts';
import { callerOf } from '../authenticate.ts';
import { described, errorResponses, idParams } from '../route-schemas.ts';

const tags = ['Webhooks'];
const errors = errorResponses();
type ById = { Params: { id: string } };

/** Webhook endpoints of the caller's account (a vidgen extension, the same for both dialects). */
export function registerWebhookRoutes(app: FastifyInstance, deps: { webhooks: WebhookService }): void {
  const { webhooks } = deps;
  const account = (request: Parameters<typeof callerOf>[0]) => callerOf(request).account.id;
  const params = idParams('id');
  registerEventRoutes(app, deps);

  app.post<{ Body: WebhookCreateBody }>(
    '/v1/webhooks',
    {
      schema: {
        operationId: 'createWebhook',
        summary: 'Register a webhook endpoint (its secret is shown only in this answer)',
        tags,
        body: WebhookCreateBody,
        response: { 200: described(WebhookEndpointWithSecret, 'The endpoint, with its signing secret'), ...errors },
      },
    },
    async (request) => {
      const { endpoint, secret } = await webhooks.register(account(request), request.body);
      return { ...toEndpoint(endpoint), secret };
    },
  );

  app.get(
    '/v1/webhooks',
    {
      schema: {
        operationId: 'listWebhooks',
        summary: "The account's webhook endpoints",
        tags,
        response: { 200: described(WebhookEndpointList, 'Endpoints, oldest first'), ...errors },
      },
    },
    async (request) => ({
      object: 'list' as const,
      data: (await webhooks.list(account(request))).map(toEndpoint),
      has_more: false,
    }),
  );

  app.get<ById>(
    '/v1/webhooks/:id',
    {
      schema: {
        operationId: 'getWebhook',
        summary: 'A webhook endpoint',
        tags,
        params,
        response: { 200: described(EndpointSchema, 'The endpoint'), ...errors },
      },
    },
    async (request) => toEndpoint(await webhooks.get(account(request), request.params.id)),
  );

  app.patch<ById & { Body: WebhookUpdateBody }>(
    '/v1/webhooks/:id',
    {
      schema: {
        operationId: 'updateWebhook',
        summary: 'Enable (e.g. after a 410 disabled it) or disable a webhook endpoint',
        tags,
        params,
        body: WebhookUpdateBody,
        response: { 200: described(EndpointSchema, 'The endpoint'), ...errors },
      },
    },
    async (request) => toEndpoint(await webhooks.setEnabled(account(request), request.params.id, request.body.enabled)),
  );

  app.delete<ById>(
    '/v1/webhooks/:id',
    {
      schema: {
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook endpoint (its pending deliveries are canceled)',
        tags,
        params,
        response: { 200: described(WebhookDeleted, 'Deleted'), ...errors },
      },
    },
    async (request) => {
      await webhooks.delete(account(request), request.params.id);
      return { id: request.params.id, object: 'webhook_endpoint' as const, deleted: true };
    },
  );

  app.post<ById>(
    '/v1/webhooks/:id/rotate-secret',
    {
      schema: {
        operationId: 'rotateWebhookSecret',
        summary: 'New signing secret; the old one keeps signing beside it for 24 h',
        tags,
        params,
        response: { 200: described(WebhookEndpointWithSecret, 'The endpoint, with its new secret'), ...errors },
      },
    },
    async (request) => {
      const { endpoint, secret } = await webhooks.rotateSecret(account(request), request.params.id);
      return { ...toEndpoint(endpoint), secret };
    },
  );

  app.post<ById>(
    '/v1/webhooks/:id/test',
    {
      schema: {
        operationId: 'testWebhook',
        summary: 'Queue a `webhook.test` event to the endpoint',
        tags,
        params,
        response: { 200: described(DeliverySchema, 'The queued delivery'), ...errors },
      },
    },
    async (request) => toDelivery(await webhooks.sendTest(account(request), request.params.id)),
  );

  app.get<ById & { Querystring: { limit?: string; after?: string } }>(
    '/v1/webhooks/:id/deliveries',
    {
      schema: {
        operationId: 'listWebhookDeliveries',
        summary: "The endpoint's deliveries, newest first",
        tags,
        params,
        querystring: WebhookDeliveryListQuery,
        response: { 200: described(WebhookDeliveryList, 'A page of deliveries'), ...errors },
      },
    },
    async (request) =>
      deliveryPage(request.query, (query) => webhooks.deliveries(account(request), request.params.id, query)),
  );

  app.post<{ Params: { id: string; delivery_id: string } }>(
    '/v1/webhooks/:id/deliveries/:delivery_id/retry',
    {
      schema: {
        operationId: 'retryWebhookDelivery',
        summary: 'Send a delivery once more, now (same `webhook-id`)',
        tags,
        params: idParams('id', 'delivery_id'),
        response: { 200: described(DeliverySchema, 'The delivery, pending again'), ...errors },
      },
    },
    async (request) =>
      toDelivery(await webhooks.retry(account(request), request.params.id, request.params.delivery_id)),
  );
}
