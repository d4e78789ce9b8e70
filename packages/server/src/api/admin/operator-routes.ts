import type { FastifyInstance } from 'fastify';
import {
  AdminOverview,
  AdminTaskDetail,
  AdminTaskList,
  AdminTaskObject,
  AdminTaskQuery,
  UsageSeries,
  UsageSeriesQuery,
  type Static,
} from '@vidgen/protocol';
import type { BillingService } from '../../billing/billing-service.ts';
import type { TaskService } from '../../engine/task-service.ts';
import type { Task, TaskStatus } from '../../domain/task.ts';
import type { AccountStore } from '../../store/account-store.ts';
import { ACTIVE_COUNT_CAP, type OperatorReads } from '../../store/operator-reads.ts';
import type { WebhookService } from '../../webhooks/webhook-service.ts';
import { InvalidRequest, NotFound } from '../../errors.ts';
import { OPERATOR_LINK_PREFIX, signedContentUrl, signedFileUrl, type LinkOptions } from '../links.ts';
import { pageLimitOf, pageOf } from '../pages.ts';
import { idParams } from '../route-schemas.ts';
import { toDelivery } from '../webhooks/webhook-wire.ts';
import { toEntryObject } from './billing-wire.ts';
import type { AdminRoute } from './admin-route.ts';
import type { ChannelAdmin } from './channel-routes.ts';
import { DIALECT_FAMILIES, inputsOf, timelineOf, toAdminTask } from './task-wire.ts';
import { usageCsvOf, usageWindow } from './usage-series-wire.ts';

export interface OperatorRouteDeps {
  route: AdminRoute;
  reads: OperatorReads;
  accounts: AccountStore;
  billing: BillingService;
  tasks: Pick<TaskService, 'cancel'>;
  webhooks?: WebhookService;
  channels?: ChannelAdmin;
  links: LinkOptions;
  clock: () => number;
}

/** What the operator's console reads across accounts: the overview, every task, one task's page, usage series. */
export function registerOperatorRoutes(app: FastifyInstance, deps: OperatorRouteDeps): void {
  const { route, reads, accounts } = deps;
  const named = async (tasks: Task[]) => {
    const names = await accounts.accountNames([...new Set(tasks.map((t) => t.accountId))]);
    return (t: Task) => toAdminTask(t, names.get(t.accountId) ?? t.accountId);
  };

  app.get(
    '/admin/v1/overview',
    route('adminOverview', "The operator console's overview, in one answer", {}, AdminOverview, 'The numbers'),
    async () => {
      const now = deps.clock();
      const [numbers, channels] = await Promise.all([reads.overview(now), deps.channels?.status() ?? []]);
      return {
        object: 'overview' as const,
        now: Math.floor(now / 1000),
        active: numbers.active,
        active_count_cap: ACTIVE_COUNT_CAP,
        oldest_queued_at: numbers.oldestQueuedAt === null ? null : Math.floor(numbers.oldestQueuedAt / 1000),
        last_24_hours: numbers.hours.map((h) => ({ ...h, hour: h.hour / 1000 })),
        failure_codes: numbers.failureCodes,
        spend_today_usd_ticks: numbers.spendTodayUsdTicks,
        spend_yesterday_usd_ticks: numbers.spendYesterdayUsdTicks,
        channels_not_closed: channels
          .filter((c) => c.state !== 'closed')
          .map((c) => ({
            backend: c.backend,
            name: c.name,
            state: c.state,
            opened_at: c.openedAt === undefined ? null : Math.floor(c.openedAt / 1000),
          })),
      };
    },
  );

  app.get<{ Querystring: Static<typeof AdminTaskQuery> }>(
    '/admin/v1/tasks',
    route(
      'adminListTasks',
      "Every account's tasks, newest first, a page at a time (by keyset: `after` the last id)",
      { querystring: AdminTaskQuery },
      AdminTaskList,
      'A page of tasks',
    ),
    async (request) => {
      const q = request.query;
      const limit = pageLimitOf(q.limit);
      const account = q.account === undefined ? undefined : await accounts.findAccountByName(q.account);
      const tasks =
        q.account !== undefined && !account
          ? []
          : await reads.tasks({
              accountId: account?.id,
              status: q.status as TaskStatus | undefined,
              model: q.model,
              family: q.dialect === undefined ? undefined : DIALECT_FAMILIES[q.dialect],
              tier: q.tier,
              batchId: q.batch,
              since: secondsParam(q.since, 'since'),
              until: secondsParam(q.until, 'until'),
              after: q.after || undefined,
              limit: limit + 1,
            });
      return pageOf(tasks, limit, await named(tasks));
    },
  );

  app.get<{ Params: { id: string } }>(
    '/admin/v1/tasks/:id',
    route(
      'adminGetTask',
      "Any account's task: its timeline, inputs, ledger entries and webhook deliveries, with signed links",
      { params: idParams('id') },
      AdminTaskDetail,
      'The task',
    ),
    async (request) => {
      const found = await reads.task(request.params.id);
      if (!found) throw new NotFound('task', request.params.id);
      const { task } = found;
      const [toWire, entries, deliveries] = await Promise.all([
        named([task]),
        deps.billing.entries({ taskId: task.id, limit: 100 }),
        deliveriesOf(deps, task.id),
      ]);
      const kid = `${OPERATOR_LINK_PREFIX}${task.accountId}`;
      const now = deps.clock();
      const done = task.status === 'succeeded' && task.result !== null;
      return {
        ...toWire(task),
        timeline: timelineOf(task, found.attempts),
        inputs: inputsOf(task, (fileId) => signedFileUrl(request, fileId, kid, deps.links, now, 3600, null).url),
        content_url: done ? signedContentUrl(request, task, kid, deps.links, now) : null,
        poster_url: done ? signedContentUrl(request, task, kid, deps.links, now, 'thumbnail') : null,
        ledger: entries.map(toEntryObject),
        deliveries,
      };
    },
  );

  app.post<{ Params: { id: string } }>(
    '/admin/v1/tasks/:id/cancel',
    route(
      'adminCancelTask',
      "Cancel any account's queued or running task (409 `task_not_cancelable` once it has ended)",
      { params: idParams('id') },
      AdminTaskObject,
      'The canceled task',
    ),
    async (request) => {
      const found = await reads.task(request.params.id);
      if (!found) throw new NotFound('task', request.params.id);
      const canceled = await deps.tasks.cancel(found.task.accountId, found.task.id);
      return (await named([canceled]))(canceled);
    },
  );

  app.get<{ Querystring: Static<typeof UsageSeriesQuery> }>(
    '/admin/v1/usage/series',
    route(
      'adminUsageSeries',
      'Spend, rendered seconds and tasks per hour or day, by account, model or tier (`format=csv` for CSV)',
      { querystring: UsageSeriesQuery },
      UsageSeries,
      'The series (or text/csv)',
    ),
    async (request, reply) => {
      const q = request.query;
      const window = usageWindow(q, deps.clock());
      const rows = await reads.usageSeries({ bucket: q.bucket, groupBy: q.group_by, ...window });
      const names =
        q.group_by === 'account' ? await accounts.accountNames([...new Set(rows.map((r) => r.group))]) : new Map();
      const data = rows.map((r) => ({
        start: r.start / 1000,
        group: names.get(r.group) ?? r.group,
        tasks: r.tasks,
        spend_usd_ticks: r.spendUsdTicks,
        rendered_seconds: r.renderedMs / 1000,
      }));
      if (q.format === 'csv') return reply.type('text/csv; charset=utf-8').send(usageCsvOf(q.group_by, data));
      return {
        object: 'usage_series' as const,
        bucket: q.bucket,
        group_by: q.group_by,
        since: window.since / 1000,
        until: window.until / 1000,
        data,
      };
    },
  );
}

async function deliveriesOf(deps: OperatorRouteDeps, taskId: string) {
  if (!deps.webhooks) return [];
  const webhooks = deps.webhooks;
  const refs = await deps.reads.taskDeliveryIds(taskId);
  const found = await Promise.all(refs.map((r) => webhooks.deliveryOf(r.endpointId, r.id).catch(() => undefined)));
  return found.flatMap((f) => (f ? [{ ...toDelivery(f.delivery), endpoint_id: f.endpoint.id }] : []));
}

/** `?since=`/`?until=` of the task list: Unix seconds, as epoch milliseconds. */
function secondsParam(value: string | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,12}$/.test(value)) throw new InvalidRequest('invalid_value', `\`${field}\` must be Unix seconds.`, field);
  return Number(value) * 1000;
}
