import { Type, type Static } from '@sinclair/typebox';
import { PageOf, pageQuery } from './lists.ts';

/**
 * An event of the account as `GET /v1/events` lists it: the webhook body every delivery of it
 * sent (id, type, created_at, data), frozen when it happened, with `object: "event"`.
 */
export const EventObject = Type.Object({
  id: Type.String({ description: 'The `webhook-id` of every delivery of the event.' }),
  object: Type.Literal('event'),
  type: Type.String(),
  created_at: Type.Integer({ description: 'Unix seconds.' }),
  data: Type.Unknown({ description: "As delivered: for a task event, the task as its family's poll showed it then." }),
});
export type EventObject = Static<typeof EventObject>;

export const EventList = PageOf(EventObject);
export type EventList = Static<typeof EventList>;

export const EventListQuery = Type.Object({
  ...pageQuery('An event id'),
  type: Type.Optional(Type.String({ description: 'Only events of this type (`video.completed`, …).' })),
  created_after: Type.Optional(Type.String({ description: 'Unix seconds: only events made after it.' })),
});
export type EventListQuery = Static<typeof EventListQuery>;

/** `POST /v1/webhooks/{id}/recover` (Svix's recover-since). */
export const WebhookRecoverBody = Type.Object(
  {
    since: Type.Union([Type.Integer({ minimum: 0 }), Type.String({ minLength: 1 })], {
      description: 'Unix seconds, or an RFC 3339 time: recover events made at or after it.',
    }),
    until: Type.Optional(
      Type.Union([Type.Integer({ minimum: 0 }), Type.String({ minLength: 1 })], {
        description: 'Unix seconds or RFC 3339: only events made before it (default: now).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type WebhookRecoverBody = Static<typeof WebhookRecoverBody>;

export const WebhookRecovery = Type.Object({
  object: Type.Literal('webhook_recovery'),
  endpoint_id: Type.String(),
  queued: Type.Integer({
    description: 'Events queued for the endpoint: those it missed (never sent, failed or canceled), each once.',
  }),
});
export type WebhookRecovery = Static<typeof WebhookRecovery>;
