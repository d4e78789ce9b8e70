import { Type, type Static } from '@sinclair/typebox';
import { PageOf, pageQuery } from './lists.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

/** `POST /v1/webhooks` (a vidgen extension, for clients of both dialects). */
export const WebhookCreateBody = Type.Object({
  url: Type.String({
    description: 'An http(s) URL on a public address (private ones only where the operator allows them).',
  }),
  events: Type.Optional(
    Type.Array(Type.String(), {
      description:
        'Any of `video.completed`, `video.failed`, `video.canceled`, `video.expired`, `account.balance_low`; ' +
        'default all of them.',
    }),
  ),
});
export type WebhookCreateBody = Static<typeof WebhookCreateBody>;

export const WebhookEndpoint = Type.Object({
  id: Type.String(),
  object: Type.Literal('webhook_endpoint'),
  url: Type.String(),
  events: Type.Array(Type.String()),
  status: Type.Union([Type.Literal('enabled'), Type.Literal('disabled')]),
  disabled_reason: Nullable(Type.String()),
  disabled_by: Nullable(
    Type.Union([Type.Literal('server'), Type.Literal('account'), Type.Literal('operator')], {
      description:
        'Who disabled it: `server` (it answered 410 Gone, or failed every delivery for days), `account` or ' +
        '`operator`; null while enabled. An account can enable it again unless the operator disabled it.',
    }),
  ),
  created_at: Type.Integer({ description: 'Unix seconds.' }),
  previous_secret_expires_at: Nullable(
    Type.Integer({ description: 'Unix seconds until which the secret before the last rotation still signs.' }),
  ),
});
export type WebhookEndpoint = Static<typeof WebhookEndpoint>;

/** Creation and rotation answers: the only times the secret is shown. */
export const WebhookEndpointWithSecret = Type.Composite([
  WebhookEndpoint,
  Type.Object({
    secret: Type.String({
      description: '`whsec_…`: verify deliveries with it (Standard Webhooks). Shown only this once.',
    }),
  }),
]);
export type WebhookEndpointWithSecret = Static<typeof WebhookEndpointWithSecret>;

/** `PATCH /v1/webhooks/{id}` (and the admin's): Stripe's and Svix's on/off switch of an endpoint. */
export const WebhookUpdateBody = Type.Object(
  {
    enabled: Type.Boolean({
      description:
        '`true` enables the endpoint again (new events reach it; those from while it was disabled are not sent), ' +
        '`false` disables it and cancels its pending deliveries.',
    }),
  },
  { additionalProperties: false },
);
export type WebhookUpdateBody = Static<typeof WebhookUpdateBody>;

export const WebhookEndpointList = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(WebhookEndpoint),
  has_more: Type.Boolean(),
});
export type WebhookEndpointList = Static<typeof WebhookEndpointList>;

export const WebhookDeleted = Type.Object({
  id: Type.String(),
  object: Type.Literal('webhook_endpoint'),
  deleted: Type.Boolean(),
});
export type WebhookDeleted = Static<typeof WebhookDeleted>;

export const WebhookDelivery = Type.Object({
  id: Type.String(),
  object: Type.Literal('webhook_delivery'),
  event_id: Type.String({ description: 'The `webhook-id` header of every attempt.' }),
  event_type: Type.String(),
  task_id: Nullable(Type.String()),
  status: Type.Union([
    Type.Literal('pending'),
    Type.Literal('delivered'),
    Type.Literal('failed'),
    Type.Literal('canceled'),
  ]),
  attempts: Type.Integer(),
  next_attempt_at: Nullable(Type.Integer({ description: 'Unix seconds of the next try, while pending.' })),
  last_status_code: Nullable(Type.Integer()),
  last_error: Nullable(Type.String()),
  created_at: Type.Integer({ description: 'Unix seconds.' }),
  delivered_at: Nullable(Type.Integer()),
});
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export const WebhookDeliveryList = PageOf(WebhookDelivery);
export type WebhookDeliveryList = Static<typeof WebhookDeliveryList>;

export const WebhookDeliveryListQuery = Type.Object(pageQuery('A delivery id'));

/**
 * The JSON body of a delivery. For a task event `data.object` is the task exactly as its family's poll
 * returned it when the event happened; for `account.balance_low`, `data` is the account's balance then.
 */
export interface WebhookEventBody {
  id: string;
  type:
    | 'video.completed'
    | 'video.failed'
    | 'video.canceled'
    | 'video.expired'
    | 'account.balance_low'
    | 'webhook.test';
  created_at: number;
  data: { id: string; family?: string; object?: Record<string, unknown> } | BalanceLowData;
}

/** `data` of an `account.balance_low` event: integer USD ticks; `available_usd_ticks` = balance − held. */
export interface BalanceLowData {
  /** The account (its id as the admin API names it). */
  id: string;
  object: 'account_balance';
  balance_usd_ticks: number;
  held_usd_ticks: number;
  available_usd_ticks: number;
  threshold_usd_ticks: number;
}

/** The admin API's view of an endpoint: its account and its deliveries by status. Never the secret. */
export const AdminWebhookEndpoint = Type.Composite([
  WebhookEndpoint,
  Type.Object({
    account: Type.String({ description: 'The account (its name, as elsewhere in the admin API).' }),
    deliveries: Type.Object(
      {
        pending: Type.Integer(),
        delivered: Type.Integer(),
        failed: Type.Integer(),
        canceled: Type.Integer(),
      },
      { description: 'Deliveries to this endpoint by status, all time.' },
    ),
  }),
]);
export type AdminWebhookEndpoint = Static<typeof AdminWebhookEndpoint>;
export const AdminWebhookEndpointList = PageOf(AdminWebhookEndpoint);
export const AdminWebhookQuery = Type.Object({
  account: Type.Optional(Type.String({ description: 'One account; every account by default.' })),
  order: Type.Optional(
    Type.Literal('failing', {
      description: '`failing`: endpoints with failed deliveries first, the most first (one page, no cursor).',
    }),
  ),
  ...pageQuery('An endpoint id'),
});

/**
 * `GET /admin/v1/operator-webhook`: where every account's `account.balance_low` events go, and the secret
 * signing them.
 */
export const OperatorWebhookObject = Type.Object({
  object: Type.Literal('operator_webhook'),
  url: Nullable(Type.String({ description: 'VIDGEN_OPERATOR_WEBHOOK_URL; null: not configured.' })),
  allow_private_urls: Type.Boolean({
    description: 'Whether it may be on loopback or a private network (VIDGEN_OPERATOR_WEBHOOK_ALLOW_PRIVATE).',
  }),
  secret: Nullable(
    Type.String({
      description:
        '`whsec_…`: verify its deliveries with it (Standard Webhooks). Derived from the service’s signing secret, ' +
        'so the same on every process.',
    }),
  ),
});
export type OperatorWebhookObject = Static<typeof OperatorWebhookObject>;

export const OperatorDeliveryListQuery = Type.Object({
  account: Type.String({ description: 'The account whose events they were.' }),
  ...pageQuery('A delivery id'),
});
