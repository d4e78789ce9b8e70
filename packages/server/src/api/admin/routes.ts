import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  AccountList,
  AccountObject,
  AdminAccountQuery,
  ApiKeyList,
  CreateAccountBody,
  CreatedApiKey,
  CreditAnswer,
  CreditBody,
  KeyQuotaBody,
  KeyQuotaObject,
  LedgerList,
  PriceGroupBody,
  PriceGroupList,
  PriceGroupObject,
  TaskRefundAnswer,
  TaskRefundBody,
  LedgerQuery,
  PatchAccountBody,
  Type,
  UsageQuery,
  UsageReport,
  type Static,
} from '@vidgen/protocol';
import type { BillingService } from '../../billing/billing-service.ts';
import type { KeyQuota } from '../../billing/key-quotas.ts';
import type { AccountStore } from '../../store/account-store.ts';
import type { WebhookService } from '../../webhooks/webhook-service.ts';
import { InvalidRequest } from '../../errors.ts';
import { idempotencyOf } from '../request-options.ts';
import { readPage } from '../pages.ts';
import { idParams } from '../route-schemas.ts';
import { dayRange, toAccountObject, toEntryObject, toPriceGroupObject, toUsageRows, usageCsv } from './billing-wire.ts';
import { adminRoutes } from './admin-route.ts';
import { registerAdminWebhookRoutes } from './webhook-routes.ts';
import { registerAdminDeliveryRoutes } from './delivery-routes.ts';
import { registerOperatorRoutes } from './operator-routes.ts';
import type { OperatorReads } from '../../store/operator-reads.ts';
import type { TaskService } from '../../engine/task-service.ts';
import type { LinkOptions } from '../links.ts';
import { registerAdminChannelRoutes, type ChannelAdmin, type ComfyUiHostsAdmin } from './channel-routes.ts';
import { registerOperatorWebhookRoutes, type OperatorWebhookView } from './operator-webhook-route.ts';

export interface AdminDeps {
  billing: BillingService;
  /** Account names ↔ ids, for the webhook routes (endpoints belong to an account's id). */
  accounts: AccountStore;
  /** VIDGEN_ADMIN_TOKEN; unset: every admin route answers 403 `admin_disabled`. */
  adminToken?: string;
  /** Every account's webhook endpoints; absent, the admin webhook routes answer an empty list and 404. */
  webhooks?: WebhookService;
  /** The relay channels of VIDGEN_BACKENDS_FILE; absent (no such file), the list is empty. */
  channels?: ChannelAdmin;
  /** The ComfyUI hosts of VIDGEN_COMFYUI_CONFIG; absent (no such config), the list is empty. */
  comfyUiHosts?: ComfyUiHostsAdmin;
  /** VIDGEN_OPERATOR_WEBHOOK_URL and its signing secret. */
  operatorWebhook?: OperatorWebhookView;
  /** Reads across accounts for the operator's console (tasks, overview, usage series, deliveries). */
  reads: OperatorReads;
  tasks: Pick<TaskService, 'cancel'>;
  /** How signed links to a task's content are minted (for the operator: `kid` names the account). */
  links: LinkOptions;
  clock: () => number;
}

type Limits = Static<typeof CreateAccountBody>['limits'];

/** `/admin/v1/*`: the operator's API, on the same service layer as `vidgen-server accounts|keys|credits`. */
export function registerAdminRoutes(app: FastifyInstance, deps: AdminDeps) {
  const { billing } = deps;
  const route = adminRoutes(deps.adminToken);
  type ById = { Params: { id: string } };
  const accountParams = idParams('id');

  app.post<{ Body: Static<typeof CreateAccountBody> }>(
    '/admin/v1/accounts',
    route(
      'adminCreateAccount',
      'Create an account (a given credit makes it metered)',
      { body: CreateAccountBody },
      AccountObject,
      'The account',
    ),
    async (request) => {
      const { id, models, credits_usd_ticks: credits, limits, price_group: priceGroup } = request.body;
      const balanceAlertUsdTicks = request.body.balance_alert_usd_ticks;
      return toAccountObject(
        await billing.createAccount(id, {
          models,
          creditsUsdTicks: credits,
          priceGroup,
          balanceAlertUsdTicks,
          zeroRetention: request.body.zero_retention,
          serviceTiers: request.body.service_tiers,
          ...limitsOf(limits),
        }),
      );
    },
  );
  app.get<{ Querystring: Static<typeof AdminAccountQuery> }>(
    '/admin/v1/accounts',
    route(
      'adminListAccounts',
      'List accounts by id, a page at a time',
      { querystring: AdminAccountQuery },
      AccountList,
      'A page of accounts',
    ),
    (request) =>
      readPage(request.query, (page) => billing.accounts({ ...page, prefix: request.query.prefix }), toAccountObject),
  );
  app.get<ById>(
    '/admin/v1/accounts/:id',
    route('adminGetAccount', 'One account', { params: accountParams }, AccountObject, 'The account'),
    async (request) => toAccountObject(await billing.account(request.params.id)),
  );
  app.patch<ById & { Body: Static<typeof PatchAccountBody> }>(
    '/admin/v1/accounts/:id',
    route(
      'adminUpdateAccount',
      'Change models, metering, limits, price group, balance alert, service tiers or zero retention',
      { params: accountParams, body: PatchAccountBody },
      AccountObject,
      'The account',
    ),
    async (request) => {
      const { models, metered, limits, price_group: priceGroup } = request.body;
      const balanceAlertUsdTicks = request.body.balance_alert_usd_ticks;
      return toAccountObject(
        await billing.updateAccount(request.params.id, {
          models,
          metered,
          priceGroup,
          balanceAlertUsdTicks,
          zeroRetention: request.body.zero_retention,
          serviceTiers: request.body.service_tiers,
          ...limitsOf(limits),
        }),
      );
    },
  );

  app.post<ById>(
    '/admin/v1/accounts/:id/keys',
    route(
      'adminCreateKey',
      'Create an API key (shown only in this answer)',
      { params: accountParams },
      CreatedApiKey,
      'The new key',
    ),
    async (request) => ({ object: 'api_key' as const, ...(await billing.createKey(request.params.id)) }),
  );
  app.get<ById>(
    '/admin/v1/accounts/:id/keys',
    route('adminListKeys', "The account's keys (never the secrets)", { params: accountParams }, ApiKeyList, 'The keys'),
    async (request) => ({
      object: 'list' as const,
      data: (await billing.keys(request.params.id)).map((k) => ({
        id: k.id,
        object: 'api_key' as const,
        prefix: k.prefix,
        created_at: Math.floor(k.createdAt / 1000),
        revoked_at: k.revokedAt === null ? null : Math.floor(k.revokedAt / 1000),
        quota: k.quota && toQuotaObject(k.quota),
      })),
    }),
  );
  app.patch<{ Params: { id: string; key_id: string }; Body: Static<typeof KeyQuotaBody> }>(
    '/admin/v1/accounts/:id/keys/:key_id',
    route(
      'adminSetKeyQuota',
      'Set a key’s quota of tasks and USD ticks, in all or per UTC month (402 `key_quota_exceeded` once used up)',
      { params: idParams('id', 'key_id'), body: KeyQuotaBody },
      Type.Object({
        id: Type.String(),
        object: Type.Literal('api_key'),
        quota: Type.Union([KeyQuotaObject, Type.Null()]),
      }),
      'The key’s quota',
    ),
    async (request) => {
      const quota = request.body.quota;
      const set = await billing.setKeyQuota(request.params.id, request.params.key_id, {
        maxTasks: quota?.max_tasks ?? null,
        maxUsdTicks: quota?.max_usd_ticks ?? null,
        period: quota?.period ?? 'total',
      });
      return { id: request.params.key_id, object: 'api_key' as const, quota: set && toQuotaObject(set) };
    },
  );
  app.delete<{ Params: { id: string; key_id: string } }>(
    '/admin/v1/accounts/:id/keys/:key_id',
    route(
      'adminRevokeKey',
      'Revoke a key',
      { params: idParams('id', 'key_id') },
      Type.Object({ id: Type.String(), revoked: Type.Boolean() }),
      'Revoked',
    ),
    async (request) => (
      await billing.revokeKey(request.params.id, request.params.key_id), { id: request.params.key_id, revoked: true }
    ),
  );

  app.post<ById & { Body: Static<typeof CreditBody> }>(
    '/admin/v1/accounts/:id/credits',
    route(
      'adminCredit',
      'Grant (positive) or deduct (negative) credits; idempotent with `Idempotency-Key`',
      { params: accountParams, body: CreditBody },
      CreditAnswer,
      'The ledger entry and the account',
    ),
    async (request, reply) => {
      const result = await billing.credit(
        request.params.id,
        request.body.amount_usd_ticks,
        request.body.reason,
        idempotencyOf(request)?.key,
        request.body.metered,
      );
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      return {
        entry: toEntryObject({ ...result.entry, account: request.params.id }),
        account: toAccountObject(result.account),
      };
    },
  );

  app.post<ById & { Body: Static<typeof TaskRefundBody> }>(
    '/admin/v1/tasks/:id/refund',
    route(
      'adminRefundTask',
      'Refund all or part of what a task was charged (once per task; a repeat of the same refund is replayed)',
      { params: idParams('id'), body: TaskRefundBody },
      TaskRefundAnswer,
      'The refund entry (it names the settle entry) and the account',
    ),
    async (request, reply) => {
      const { amount_usd_ticks: amount, reason } = request.body;
      const result = await billing.refundTask(request.params.id, amount, reason);
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      return { entry: toEntryObject(result.entry), account: toAccountObject(result.account) };
    },
  );

  app.get<{ Querystring: Static<typeof LedgerQuery> }>(
    '/admin/v1/ledger',
    route(
      'adminLedger',
      'Ledger entries, oldest first (`order=desc`: newest first)',
      { querystring: LedgerQuery },
      LedgerList,
      'A page of entries',
    ),
    async (request) => {
      const limit = pageLimit(request.query.limit);
      const entries = await billing.entries({
        account: request.query.account,
        taskId: request.query.task_id,
        after: request.query.after,
        limit: limit + 1,
        order: request.query.order,
      });
      const page = entries.slice(0, limit);
      return {
        object: 'list' as const,
        data: page.map(toEntryObject),
        has_more: entries.length > limit,
        last_id: page.at(-1)?.id ?? null,
      };
    },
  );

  app.get<{ Querystring: Static<typeof UsageQuery> }>(
    '/admin/v1/usage',
    route(
      'adminUsage',
      'Usage by account, API key, model and day (`?format=csv` for CSV)',
      { querystring: UsageQuery },
      UsageReport,
      'Usage rows (or text/csv)',
    ),
    async (request: FastifyRequest<{ Querystring: Static<typeof UsageQuery> }>, reply) => {
      const rows = await billing.usage({ account: request.query.account, ...dayRange(request.query) });
      if (request.query.format === 'csv') return reply.type('text/csv; charset=utf-8').send(usageCsv(rows, true));
      return { object: 'list' as const, data: toUsageRows(rows, true) };
    },
  );

  app.put<ById & { Body: Static<typeof PriceGroupBody> }>(
    '/admin/v1/price-groups/:id',
    route(
      'adminSetPriceGroup',
      'Create or replace a price group (the catalog’s prices × ratio, or its own per model)',
      { params: accountParams, body: PriceGroupBody },
      PriceGroupObject,
      'The price group',
    ),
    async (request) =>
      toPriceGroupObject(
        await billing.setPriceGroup(request.params.id, request.body.ratio ?? 1, request.body.models ?? {}),
      ),
  );
  app.get(
    '/admin/v1/price-groups',
    route('adminListPriceGroups', 'Every price group', {}, PriceGroupList, 'The price groups'),
    async () => ({ object: 'list' as const, data: (await billing.priceGroups()).map(toPriceGroupObject) }),
  );

  registerAdminWebhookRoutes(app, { route, accounts: deps.accounts, webhooks: deps.webhooks, reads: deps.reads });
  registerAdminDeliveryRoutes(app, { route, accounts: deps.accounts, webhooks: deps.webhooks, reads: deps.reads });
  registerOperatorRoutes(app, { ...deps, route });
  registerAdminChannelRoutes(app, { route, channels: deps.channels, comfyUiHosts: deps.comfyUiHosts });
  registerOperatorWebhookRoutes(app, {
    route,
    accounts: deps.accounts,
    webhooks: deps.webhooks,
    operatorWebhook: deps.operatorWebhook,
  });
}

function toQuotaObject(q: KeyQuota) {
  return {
    max_tasks: q.maxTasks,
    max_usd_ticks: q.maxUsdTicks,
    period: q.period,
    tasks_used: q.tasksUsed,
    usd_ticks_used: q.usdTicksUsed,
    resets_at: q.resetsAt === null ? null : Math.floor(q.resetsAt / 1000),
  };
}

function limitsOf(limits: Limits) {
  return {
    requestsPerMinute: limits?.requests_per_minute,
    maxActiveTasks: limits?.max_active_tasks,
    maxTaskUsdTicks: limits?.max_task_usd_ticks,
    maxDailyUsdTicks: limits?.max_daily_usd_ticks,
  };
}

function pageLimit(raw: string | undefined): number {
  if (raw === undefined) return 100;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 1000)
    throw new InvalidRequest('invalid_limit', '`limit` must be an integer from 1 to 1000.', 'limit');
  return n;
}
