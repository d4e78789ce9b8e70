import { Type, type Static } from '@sinclair/typebox';
import { PageOf, pageQuery } from './lists.ts';
import { REQUESTED_SERVICE_TIERS, StringEnum } from './common.ts';

const ServiceTiers = Type.Array(StringEnum(REQUESTED_SERVICE_TIERS), {
  description:
    'The `service_tier` values its submits may name (any other is a 400 naming `service_tier`); default ' +
    '`["default", "flex"]`.',
});

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Ticks = (description?: string) => Type.Integer(description ? { description } : {});
/**
 * The most an amount of USD ticks may be: the largest integer a JSON number carries exactly (2^53 − 1,
 * about 900,000 USD); the database's bigint columns hold more, but no client could read it back.
 */
export const MAX_USD_TICKS = Number.MAX_SAFE_INTEGER;
/** The most a count limit may be: its column is a 32-bit integer. */
export const MAX_LIMIT_COUNT = 2_147_483_647;
const TickAmount = (options: { minimum: number; description?: string }) =>
  Type.Integer({ maximum: MAX_USD_TICKS, ...options });

export const AccountLimits = Type.Object({
  requests_per_minute: Nullable(
    Type.Integer({
      minimum: 1,
      maximum: MAX_LIMIT_COUNT,
      description: 'Creates per minute per API key; null for no limit.',
    }),
  ),
  max_active_tasks: Nullable(
    Type.Integer({
      minimum: 1,
      maximum: MAX_LIMIT_COUNT,
      description: 'Tasks of the account queued or running at once; null for no cap.',
    }),
  ),
  max_task_usd_ticks: Nullable(
    TickAmount({
      minimum: 1,
      description: 'Sanity cap: the most one task may cost; a pricier one is refused (402).',
    }),
  ),
  max_daily_usd_ticks: Nullable(
    TickAmount({
      minimum: 1,
      description: 'Sanity cap: the most a metered account’s tasks held in one UTC day may cost (402 beyond).',
    }),
  ),
});
export type AccountLimits = Static<typeof AccountLimits>;

/** An account: `GET /v1/account` (the caller's) and the admin API. Amounts are integer USD ticks (10⁻¹⁰ USD). */
export const AccountObject = Type.Object({
  id: Type.String(),
  object: Type.Literal('account'),
  models: Nullable(Type.Array(Type.String())),
  metered: Type.Boolean({
    description: 'Metered accounts hold each task’s price at submit; unmetered ones are not charged.',
  }),
  balance_usd_ticks: Ticks(),
  held_usd_ticks: Ticks('Reserved by tasks not yet settled.'),
  available_usd_ticks: Ticks('balance − held: what new tasks can hold.'),
  limits: AccountLimits,
  price_group: Nullable(Type.String({ description: 'The account’s price group; null: the catalog’s prices.' })),
  service_tiers: ServiceTiers,
  balance_alert_usd_ticks: Nullable(
    Type.Integer({
      description:
        'When `available_usd_ticks` goes under it, one `account.balance_low` event is sent (to the account’s ' +
        'webhook endpoints and the operator’s webhook); again only after it was at or over it. Null: no alert.',
    }),
  ),
  balance_low_since: Nullable(
    Type.Integer({
      description: 'Unix seconds since when `available_usd_ticks` has been under the alert threshold; null: it is not.',
    }),
  ),
  zero_retention: Type.Boolean({
    description: 'Submits must carry `output.upload_url`; a video delivered there is not kept (docs/storage.md).',
  }),
  created_at: Type.Integer({ description: 'Unix seconds.' }),
});
export type AccountObject = Static<typeof AccountObject>;

export const AccountList = PageOf(AccountObject);
export const AdminAccountQuery = Type.Object({
  ...pageQuery('An account id (accounts are listed by id)'),
  prefix: Type.Optional(Type.String({ maxLength: 64, description: 'Only accounts whose id starts with this.' })),
});

export const UsageRowObject = Type.Object({
  account: Type.Optional(Type.String()),
  key_id: Nullable(Type.String({ description: 'The API key the tasks were submitted with (null: none recorded).' })),
  model: Type.String(),
  service_tier: Type.String({
    description: 'The service tier the tasks ran in (`default`, `flex`, `priority`, or `batch` for batch lines).',
  }),
  day: Type.String({ description: 'UTC day the tasks ended, YYYY-MM-DD.' }),
  tasks: Type.Integer(),
  seconds: Type.Number(),
  sound_tasks: Type.Integer({ description: 'Of `tasks`, those whose verified output has sound.' }),
  sound_seconds: Type.Number({ description: 'Of `seconds`, those with sound (priced with the sound surcharge).' }),
  cost_in_usd_ticks: Ticks(),
  refunded_usd_ticks: Ticks('Given back by the operator (task refunds).'),
  upstream_cost_in_usd_ticks: Type.Optional(
    Ticks(
      'Admin only: what upstreams charged for these tasks (relays): reported by the upstream, or for a cancel it ' +
        'could not stop, its channel’s `upstream_usd_ticks_per_second` × the seconds ordered.',
    ),
  ),
  margin_usd_ticks: Type.Optional(
    Ticks('Admin only: cost − refunded − upstream cost; negative where the tasks lost money.'),
  ),
});
export const UsageReport = Type.Object({ object: Type.Literal('list'), data: Type.Array(UsageRowObject) });
export type UsageReport = Static<typeof UsageReport>;

export const UsageQuery = Type.Object({
  since: Type.Optional(Type.String({ description: 'YYYY-MM-DD (UTC), inclusive.' })),
  until: Type.Optional(Type.String({ description: 'YYYY-MM-DD (UTC), exclusive.' })),
  account: Type.Optional(Type.String({ description: 'Admin only: one account.' })),
  format: Type.Optional(Type.String({ description: '`csv` for text/csv.' })),
});

const BalanceAlertField = Type.Optional(
  Nullable(
    TickAmount({
      minimum: 1,
      description:
        'Sends one `account.balance_low` event when the available balance (balance − held) goes under it; ' +
        'null removes the alert.',
    }),
  ),
);
const PriceGroupId = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'A price group’s id; null: the catalog’s prices.',
});
export const CreateAccountBody = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200 }),
  models: Type.Optional(Nullable(Type.Array(Type.String()))),
  credits_usd_ticks: Type.Optional(
    TickAmount({ minimum: 0, description: 'Makes the account metered with this starting balance.' }),
  ),
  limits: Type.Optional(Type.Partial(AccountLimits)),
  price_group: Type.Optional(Nullable(PriceGroupId)),
  balance_alert_usd_ticks: BalanceAlertField,
  zero_retention: Type.Optional(
    Type.Boolean({
      description:
        'Zero retention: every submit must carry `output.upload_url`, and a video delivered there is deleted from ' +
        'vidgen (docs/storage.md).',
    }),
  ),
  service_tiers: Type.Optional(Nullable(ServiceTiers)),
});
export const PatchAccountBody = Type.Object({
  models: Type.Optional(Nullable(Type.Array(Type.String()))),
  metered: Type.Optional(Type.Boolean()),
  limits: Type.Optional(Type.Partial(AccountLimits)),
  price_group: Type.Optional(Nullable(PriceGroupId)),
  balance_alert_usd_ticks: BalanceAlertField,
  zero_retention: Type.Optional(
    Type.Boolean({
      description:
        'Zero retention: every submit must carry `output.upload_url`, and a video delivered there is deleted from ' +
        'vidgen (docs/storage.md).',
    }),
  ),
  service_tiers: Type.Optional(Nullable(ServiceTiers)),
});

/** A price group: its accounts pay the catalog's prices × `ratio`, or the group's own price for the models it names. */
export const PriceGroupBody = Type.Object({
  ratio: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: 1000,
      description: 'Times the catalog’s prices (default 1), in steps of 10⁻⁶.',
    }),
  ),
  models: Type.Optional(
    Type.Record(Type.String(), TickAmount({ minimum: 0 }), {
      description: 'Model id → USD ticks per output second, at every resolution (instead of the ratio).',
    }),
  ),
});
export const PriceGroupObject = Type.Object({
  id: Type.String(),
  object: Type.Literal('price_group'),
  ratio: Type.Number(),
  models: Type.Record(Type.String(), Type.Integer()),
});
export const PriceGroupList = Type.Object({ object: Type.Literal('list'), data: Type.Array(PriceGroupObject) });

const QuotaPeriod = Type.Union([Type.Literal('total'), Type.Literal('month')], {
  description:
    '`total`: over the key’s life (the default); `month`: per calendar month (UTC), starting over at its end.',
});
export const KeyQuotaLimits = Type.Object({
  max_tasks: Nullable(
    Type.Integer({
      minimum: 1,
      maximum: MAX_USD_TICKS,
      description: 'Tasks the key may create in the period; null for no limit.',
    }),
  ),
  max_usd_ticks: Nullable(
    TickAmount({ minimum: 1, description: 'USD ticks the key’s tasks may cost in the period; null for no limit.' }),
  ),
  period: QuotaPeriod,
});
export const KeyQuotaObject = Type.Object({
  max_tasks: Nullable(Type.Integer()),
  max_usd_ticks: Nullable(Type.Integer()),
  period: QuotaPeriod,
  tasks_used: Type.Integer({ description: 'Tasks created with the key in the period.' }),
  usd_ticks_used: Type.Integer({
    description: 'In the period: held by its running tasks plus what its ended tasks cost.',
  }),
  resets_at: Nullable(
    Type.Integer({ description: 'A monthly quota: Unix seconds when its counts start over; null for `total`.' }),
  ),
});
export const KeyQuotaBody = Type.Object({
  quota: Type.Union([Type.Partial(KeyQuotaLimits), Type.Null()], { description: 'null removes the quota.' }),
});

export const ApiKeyObject = Type.Object({
  id: Type.String(),
  object: Type.Literal('api_key'),
  prefix: Type.String(),
  created_at: Type.Integer({ description: 'Unix seconds.' }),
  revoked_at: Nullable(Type.Integer({ description: 'Unix seconds.' })),
  quota: Type.Optional(Nullable(KeyQuotaObject)),
});
export const ApiKeyList = Type.Object({ object: Type.Literal('list'), data: Type.Array(ApiKeyObject) });
export const CreatedApiKey = Type.Object({
  id: Type.String(),
  object: Type.Literal('api_key'),
  key: Type.String({ description: 'Shown only this once.' }),
  prefix: Type.String(),
});

export const CreditBody = Type.Object({
  amount_usd_ticks: TickAmount({ minimum: -MAX_USD_TICKS, description: 'Positive grants, negative deducts.' }),
  reason: Type.String({ minLength: 1, maxLength: 500 }),
  metered: Type.Optional(
    Type.Boolean({
      description:
        '`true` also makes an unmetered account metered. Without it, credits to an unmetered account are refused ' +
        '(409 `account_unmetered`): they would never be spent.',
    }),
  ),
});

export const LedgerEntryObject = Type.Object({
  id: Type.String(),
  object: Type.Literal('ledger_entry'),
  account: Type.String(),
  task_id: Nullable(Type.String()),
  kind: Type.Unsafe<'grant' | 'hold' | 'settle' | 'release' | 'adjust' | 'refund'>({
    type: 'string',
    enum: ['grant', 'hold', 'settle', 'release', 'adjust', 'refund'],
  }),
  amount_usd_ticks: Ticks(),
  reason: Type.String(),
  idempotency_key: Nullable(Type.String()),
  refers_to: Nullable(Type.String({ description: 'A refund: the id of the settle entry it gives back from.' })),
  created_at: Type.Integer({ description: 'Unix seconds.' }),
});
export type LedgerEntryObject = Static<typeof LedgerEntryObject>;
export const CreditAnswer = Type.Object({ entry: LedgerEntryObject, account: AccountObject });
export const LedgerList = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(LedgerEntryObject),
  has_more: Type.Boolean(),
  last_id: Nullable(Type.String()),
});
export const TaskRefundBody = Type.Object({
  amount_usd_ticks: Type.Optional(
    TickAmount({ minimum: 1, description: 'At most what the task was charged; absent, all of it.' }),
  ),
  reason: Type.String({ minLength: 1, maxLength: 500 }),
});
export const TaskRefundAnswer = Type.Object({ entry: LedgerEntryObject, account: AccountObject });

export const LedgerQuery = Type.Object({
  account: Type.Optional(Type.String()),
  task_id: Type.Optional(Type.String()),
  after: Type.Optional(Type.String({ description: 'An entry id: the page after it.' })),
  limit: Type.Optional(Type.String({ description: '1–1000, default 100.' })),
  order: Type.Optional(
    Type.Union([Type.Literal('asc'), Type.Literal('desc')], {
      description: '`desc` for newest first (default `asc`).',
    }),
  ),
});
