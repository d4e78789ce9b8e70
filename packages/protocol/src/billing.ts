import { Type, type Static } from '@sinclair/typebox';
import { PageOf, pageQuery } from './lists.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Ticks = (description?: string) => Type.Integer(description ? { description } : {});

export const AccountLimits = Type.Object({
  requests_per_minute: Nullable(
    Type.Integer({ minimum: 1, description: 'Creates per minute per API key; null for no limit.' }),
  ),
  max_active_tasks: Nullable(
    Type.Integer({ minimum: 1, description: 'Tasks of the account queued or running at once; null for no cap.' }),
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
  created_at: Type.Integer({ description: 'Unix seconds.' }),
});
export type AccountObject = Static<typeof AccountObject>;

export const AccountList = PageOf(AccountObject);
export const AdminAccountQuery = Type.Object(pageQuery('An account id (accounts are listed by id)'));

export const UsageRowObject = Type.Object({
  account: Type.Optional(Type.String()),
  model: Type.String(),
  day: Type.String({ description: 'UTC day the tasks ended, YYYY-MM-DD.' }),
  tasks: Type.Integer(),
  seconds: Type.Number(),
  sound_tasks: Type.Integer({ description: 'Of `tasks`, those whose verified output has sound.' }),
  sound_seconds: Type.Number({ description: 'Of `seconds`, those with sound (priced with the sound surcharge).' }),
  cost_in_usd_ticks: Ticks(),
  upstream_cost_in_usd_ticks: Type.Optional(Ticks('Admin only: what upstreams reported charging (relays).')),
});
export const UsageReport = Type.Object({ object: Type.Literal('list'), data: Type.Array(UsageRowObject) });
export type UsageReport = Static<typeof UsageReport>;

export const UsageQuery = Type.Object({
  since: Type.Optional(Type.String({ description: 'YYYY-MM-DD (UTC), inclusive.' })),
  until: Type.Optional(Type.String({ description: 'YYYY-MM-DD (UTC), exclusive.' })),
  account: Type.Optional(Type.String({ description: 'Admin only: one account.' })),
  format: Type.Optional(Type.String({ description: 'Admin only: `csv` for text/csv.' })),
});

export const CreateAccountBody = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200 }),
  models: Type.Optional(Nullable(Type.Array(Type.String()))),
  credits_usd_ticks: Type.Optional(
    Type.Integer({ minimum: 0, description: 'Makes the account metered with this starting balance.' }),
  ),
  limits: Type.Optional(Type.Partial(AccountLimits)),
});
export const PatchAccountBody = Type.Object({
  models: Type.Optional(Nullable(Type.Array(Type.String()))),
  metered: Type.Optional(Type.Boolean()),
  limits: Type.Optional(Type.Partial(AccountLimits)),
});

export const ApiKeyObject = Type.Object({
  id: Type.String(),
  object: Type.Literal('api_key'),
  prefix: Type.String(),
  created_at: Type.Integer(),
  revoked_at: Nullable(Type.Integer()),
});
export const ApiKeyList = Type.Object({ object: Type.Literal('list'), data: Type.Array(ApiKeyObject) });
export const CreatedApiKey = Type.Object({
  id: Type.String(),
  object: Type.Literal('api_key'),
  key: Type.String({ description: 'Shown only this once.' }),
  prefix: Type.String(),
});

export const CreditBody = Type.Object({
  amount_usd_ticks: Type.Integer({ description: 'Positive grants, negative deducts.' }),
  reason: Type.String({ minLength: 1, maxLength: 500 }),
});

export const LedgerEntryObject = Type.Object({
  id: Type.String(),
  object: Type.Literal('ledger_entry'),
  account: Type.String(),
  task_id: Nullable(Type.String()),
  kind: Type.Unsafe<'grant' | 'hold' | 'settle' | 'release' | 'adjust'>({
    type: 'string',
    enum: ['grant', 'hold', 'settle', 'release', 'adjust'],
  }),
  amount_usd_ticks: Ticks(),
  reason: Type.String(),
  idempotency_key: Nullable(Type.String()),
  created_at: Type.Integer({ description: 'Unix milliseconds.' }),
});
export type LedgerEntryObject = Static<typeof LedgerEntryObject>;
export const CreditAnswer = Type.Object({ entry: LedgerEntryObject, account: AccountObject });
export const LedgerList = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(LedgerEntryObject),
  has_more: Type.Boolean(),
  last_id: Nullable(Type.String()),
});
export const LedgerQuery = Type.Object({
  account: Type.Optional(Type.String()),
  task_id: Type.Optional(Type.String()),
  after: Type.Optional(Type.String({ description: 'An entry id: the page after it.' })),
  limit: Type.Optional(Type.String({ description: '1–1000, default 100.' })),
});
