import type { AccountObject, LedgerEntryObject } from '@vidgen/protocol';
import type { AccountView } from '../../billing/billing-service.ts';
import type { LedgerEntry, UsageRow } from '../../billing/ledger.ts';
import { InvalidRequest } from '../../errors.ts';

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
    limits: { requests_per_minute: view.limits.requestsPerMinute, max_active_tasks: view.limits.maxActiveTasks },
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
    created_at: entry.createdAt,
  };
}

export function toUsageRows(rows: UsageRow[], admin: boolean) {
  return rows.map((r) => ({
    ...(admin ? { account: r.accountName } : {}),
    model: r.model,
    day: r.day,
    tasks: r.tasks,
    seconds: r.seconds,
    sound_tasks: r.soundTasks,
    sound_seconds: r.soundSeconds,
    cost_in_usd_ticks: r.costUsdTicks,
    ...(admin ? { upstream_cost_in_usd_ticks: r.upstreamCostUsdTicks } : {}),
  }));
}

export function usageCsv(rows: UsageRow[]): string {
  const quote = (v: string) => (/[",\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
  const lines = ['account,model,day,tasks,seconds,cost_in_usd_ticks,upstream_cost_in_usd_ticks'];
  for (const r of rows)
    lines.push(
      [quote(r.accountName), quote(r.model), r.day, r.tasks, r.seconds, r.costUsdTicks, r.upstreamCostUsdTicks].join(
        ',',
      ),
    );
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
