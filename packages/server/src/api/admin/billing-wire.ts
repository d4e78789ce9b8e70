import type { AccountObject, LedgerEntryObject } from '@vidgen/protocol';
import type { AccountView } from '../../billing/billing-service.ts';
import type { LedgerEntry, UsageRow } from '../../billing/ledger.ts';
import { InvalidRequest } from '../../errors.ts';
import { PPM, type PriceGroup } from '../../billing/price-groups.ts';

/** Wire shapes of the economics routes (`/v1/account`, `/v1/usage`, `/admin/v1/*`). */
export function toAccountObject(view: AccountView): AccountObject {
  return {
    id: view.id,
    object: 'account',
    models: view.models,
    metered: view.metered,
    balance_usd_ticks: view.balanceUsdTicks,
    held_usd_ticks: view.heldUsdTicks,
    available_usd_ticks: view.balanceUsdTicks - view.heldUsdTicks,
    limits: {
      requests_per_minute: view.limits.requestsPerMinute,
      max_active_tasks: view.limits.maxActiveTasks,
      max_task_usd_ticks: view.limits.maxTaskUsdTicks,
      max_daily_usd_ticks: view.limits.maxDailyUsdTicks,
    },
    price_group: view.priceGroup,
    service_tiers: view.serviceTiers.filter((t) => t !== 'batch'),
    balance_alert_usd_ticks: view.balanceAlertUsdTicks,
    balance_low_since: view.balanceLowSince === null ? null : Math.floor(view.balanceLowSince / 1000),
    zero_retention: view.zeroRetention,
    created_at: Math.floor(view.createdAt / 1000),
  };
}

export function toEntryObject(entry: LedgerEntry & { account: string }): LedgerEntryObject {
  return {
    id: entry.id,
    object: 'ledger_entry',
    account: entry.account,
    task_id: entry.taskId,
    kind: entry.kind,
    amount_usd_ticks: entry.amountUsdTicks,
    reason: entry.reason,
    idempotency_key: entry.idempotencyKey,
    refers_to: entry.refersTo,
    created_at: Math.floor(entry.createdAt / 1000),
  };
}

export function toUsageRows(rows: UsageRow[], admin: boolean) {
  return rows.map((r) => ({
    ...(admin ? { account: r.accountName } : {}),
    key_id: r.keyId,
    model: r.model,
    service_tier: r.serviceTier,
    day: r.day,
    tasks: r.tasks,
    seconds: r.seconds,
    sound_tasks: r.soundTasks,
    sound_seconds: r.soundSeconds,
    cost_in_usd_ticks: r.costUsdTicks,
    refunded_usd_ticks: r.refundedUsdTicks,
    ...(admin ? { upstream_cost_in_usd_ticks: r.upstreamCostUsdTicks, margin_usd_ticks: marginOf(r) } : {}),
  }));
}

/** What the tasks earned over what their upstreams cost: negative where they lost money. */
function marginOf(r: UsageRow): number {
  return r.costUsdTicks - r.refundedUsdTicks - r.upstreamCostUsdTicks;
}

/** The report as CSV: the admin's has the account, upstream cost and margin columns too. */
export function usageCsv(rows: UsageRow[], admin = true): string {
  const quote = (v: string) => (/[",\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
  const header = ['key_id', 'model', 'day', 'tasks', 'seconds', 'cost_in_usd_ticks', 'refunded_usd_ticks'];
  const lines = [(admin ? ['account', ...header, 'upstream_cost_in_usd_ticks', 'margin_usd_ticks'] : header).join(',')];
  for (const r of rows) {
    const cells = [quote(r.keyId ?? ''), quote(r.model), r.day, r.tasks, r.seconds, r.costUsdTicks, r.refundedUsdTicks];
    lines.push((admin ? [quote(r.accountName), ...cells, r.upstreamCostUsdTicks, marginOf(r)] : cells).join(','));
  }
  return `${lines.join('\n')}\n`;
}

/** `since`/`until` as YYYY-MM-DD (UTC) → epoch ms bounds. */
export function dayRange(query: { since?: string; until?: string }): { since?: number; until?: number } {
  const parse = (value: string | undefined, name: string) => {
    if (value === undefined) return undefined;
    const ms = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : Number.NaN;
    if (Number.isNaN(ms)) throw new InvalidRequest('invalid_value', `\`${name}\` must be a day as YYYY-MM-DD.`, name);
    return ms;
  };
  return { since: parse(query.since, 'since'), until: parse(query.until, 'until') };
}

export function toPriceGroupObject(group: PriceGroup) {
  return { id: group.id, object: 'price_group' as const, ratio: group.ratioPpm / PPM, models: group.modelPrices };
}
