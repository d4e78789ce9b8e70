import { Type, type Static } from '@sinclair/typebox';
import { LedgerEntryObject } from './billing.ts';
import { PageOf, pageQuery } from './lists.ts';
import { WebhookDelivery } from './webhooks.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Seconds = (description: string) => Type.Integer({ description: `${description} (Unix seconds).` });

/** One task of any account, as the operator's console lists it (`GET /admin/v1/tasks`). */
export const AdminTaskObject = Type.Object({
  id: Type.String({ description: 'The task id (the one every dialect answers with, before its own prefix).' }),
  object: Type.Literal('admin_task'),
  account: Type.String(),
  dialect: Type.String({ description: '`A`, `B` or `openai`: the API the task was created through.' }),
  kind: Type.String({ description: '`generation`, `edit`, `extension` or `remix`.' }),
  model: Type.String(),
  tier: Type.String({ description: '`priority`, `default`, `flex` or `batch`: the service tier it ran in.' }),
  batch: Nullable(Type.String({ description: 'The batch it is a line of; null for a single create.' })),
  status: Type.String({ description: '`queued`, `running`, `succeeded`, `failed`, `canceled` or `expired`.' }),
  progress: Type.Integer({ minimum: 0, maximum: 100 }),
  prompt: Type.String(),
  cost_usd_ticks: Nullable(Type.Integer({ description: 'What it cost, once settled.' })),
  error: Nullable(Type.Object({ code: Type.String(), message: Type.String() })),
  attempts: Type.Integer(),
  created_at: Seconds('Submitted'),
  started_at: Nullable(Seconds('Its last attempt started')),
  finished_at: Nullable(Seconds('It ended')),
});
export type AdminTaskObject = Static<typeof AdminTaskObject>;
export const AdminTaskList = PageOf(AdminTaskObject);

export const AdminTaskQuery = Type.Object({
  ...pageQuery('A task id'),
  account: Type.Optional(Type.String({ description: 'One account.' })),
  status: Type.Optional(
    Type.Union(
      ['queued', 'running', 'succeeded', 'failed', 'canceled', 'expired'].map((s) => Type.Literal(s)),
      { description: 'One status.' },
    ),
  ),
  model: Type.Optional(Type.String()),
  dialect: Type.Optional(
    Type.Union([Type.Literal('A'), Type.Literal('B'), Type.Literal('openai')], { description: 'One dialect.' }),
  ),
  tier: Type.Optional(
    Type.Union(
      ['priority', 'default', 'flex', 'batch'].map((t) => Type.Literal(t)),
      { description: 'One service tier.' },
    ),
  ),
  batch: Type.Optional(Type.String({ description: 'Only the lines of this batch.' })),
  since: Type.Optional(Type.String({ description: 'Created at or after, Unix seconds.' })),
  until: Type.Optional(Type.String({ description: 'Created before, Unix seconds.' })),
});

const TimelineEvent = Type.Object({
  at: Seconds('When'),
  event: Type.Union([
    Type.Literal('submitted'),
    Type.Literal('claimed'),
    Type.Literal('attempt_ended'),
    Type.Literal('finished'),
  ]),
  attempt: Nullable(Type.Integer()),
  worker: Nullable(Type.String()),
  detail: Nullable(Type.String({ description: 'An attempt’s outcome and failure code; the final status.' })),
});

/** `GET /admin/v1/tasks/{id}`: everything the task's page shows, with links minted for the operator. */
export const AdminTaskDetail = Type.Composite([
  AdminTaskObject,
  Type.Object({
    timeline: Type.Array(TimelineEvent),
    inputs: Type.Array(
      Type.Object({
        role: Type.String({ description: '`first_frame`, `last_frame`, `keyframe` or a `reference_*`.' }),
        source: Type.String({ description: '`url`, `file` (an upload) or `blob` (an inline image stored at submit).' }),
        url: Nullable(
          Type.String({
            description: 'The URL the task was given, or a signed link to its upload; null for an inline image.',
          }),
        ),
      }),
    ),
    content_url: Nullable(Type.String({ description: 'A signed link to the MP4, valid for the signed-URL TTL.' })),
    poster_url: Nullable(Type.String({ description: 'A signed link to its poster (the first frame of the output).' })),
    ledger: Type.Array(LedgerEntryObject),
    deliveries: Type.Array(Type.Composite([WebhookDelivery, Type.Object({ endpoint_id: Type.String() })])),
  }),
]);
export type AdminTaskDetail = Static<typeof AdminTaskDetail>;

export const AdminOverview = Type.Object({
  object: Type.Literal('overview'),
  now: Seconds('When it was read'),
  active: Type.Array(Type.Object({ model: Type.String(), queued: Type.Integer(), running: Type.Integer() }), {
    description: 'Models with queued or running tasks; each count stops at `active_count_cap`.',
  }),
  active_count_cap: Type.Integer({
    description:
      'Where a count of `active` stops, so the overview costs the same however long the queue: equal means at least.',
  }),
  oldest_queued_at: Nullable(Seconds('Submission of the oldest task waiting')),
  last_24_hours: Type.Array(
    Type.Object({
      hour: Seconds('The UTC hour’s start'),
      succeeded: Type.Integer(),
      failed: Type.Integer(),
      canceled: Type.Integer(),
    }),
  ),
  failure_codes: Type.Array(Type.Object({ code: Type.String(), count: Type.Integer() })),
  spend_today_usd_ticks: Type.Integer({ description: 'Spend of the current UTC day (refunds taken off).' }),
  spend_yesterday_usd_ticks: Type.Integer(),
  channels_not_closed: Type.Array(
    Type.Object({
      backend: Type.String(),
      name: Type.String(),
      state: Type.String(),
      opened_at: Nullable(Seconds('The breaker opened')),
    }),
  ),
});
export type AdminOverview = Static<typeof AdminOverview>;

export const UsageSeriesQuery = Type.Object({
  bucket: Type.Union([Type.Literal('hour'), Type.Literal('day')]),
  group_by: Type.Union([Type.Literal('account'), Type.Literal('model'), Type.Literal('tier')]),
  since: Type.String({ description: 'Unix seconds, inclusive (rounded down to the hour).' }),
  until: Type.Optional(Type.String({ description: 'Unix seconds, exclusive; default now. At most 400 days.' })),
  format: Type.Optional(Type.Literal('csv', { description: '`csv` for text/csv.' })),
});

export const UsageSeries = Type.Object({
  object: Type.Literal('usage_series'),
  bucket: Type.String(),
  group_by: Type.String(),
  since: Type.Integer(),
  until: Type.Integer(),
  data: Type.Array(
    Type.Object({
      start: Seconds('The bucket’s start'),
      group: Type.String({ description: 'The account id, model or tier.' }),
      tasks: Type.Integer({ description: 'Tasks ended in the bucket.' }),
      spend_usd_ticks: Type.Integer({ description: 'Spend, refunds given back in the bucket taken off.' }),
      rendered_seconds: Type.Number({ description: 'Seconds of video delivered.' }),
    }),
  ),
});
export type UsageSeries = Static<typeof UsageSeries>;

export const AdminDeliveryQuery = Type.Object({
  ...pageQuery('A delivery id'),
  status: Type.Union(['pending', 'delivered', 'failed', 'canceled'].map((s) => Type.Literal(s))),
});
export const AdminDelivery = Type.Composite([
  WebhookDelivery,
  Type.Object({ endpoint_id: Type.String(), account: Type.String(), url: Type.String() }),
]);
export const AdminDeliveryList = PageOf(AdminDelivery);
