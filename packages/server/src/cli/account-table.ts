/**
 * Accounts as `vidgen-server accounts list` and `show` print them for a person: a table, times in
 * whole seconds as ISO 8601 UTC and amounts in dollars, as the user CLI `vidgen` prints its tasks.
 * `--json` prints the account objects instead, one per line, for scripts.
 */
import type { AccountView } from '../billing/billing-service.ts';
import { describeModels } from './model-ids.ts';

const TICKS_PER_USD = 10_000_000_000n;

/** Exact dollars of integer USD ticks (10⁻¹⁰ USD): at least cents, then every digit that is not zero. */
export function usdOfTicks(ticks: number): string {
  const value = BigInt(ticks);
  const abs = value < 0n ? -value : value;
  const dollars = (abs / TICKS_PER_USD).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const fraction = (abs % TICKS_PER_USD).toString().padStart(10, '0').replace(/0+$/, '').padEnd(2, '0');
  return `${value < 0n ? '-' : ''}$${dollars}.${fraction}`;
}

/** Epoch milliseconds as ISO 8601 UTC to the second (`2026-01-01T00:00:00Z`). */
export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const limitText = (n: number | null) => (n === null ? 'none' : String(n));

const HEADER = ['ID', 'BALANCE', 'HELD', 'METERED', 'RPM', 'MAX ACTIVE', 'CREATED', 'MODELS'];

function row(a: AccountView): string[] {
  return [
    a.id,
    usdOfTicks(a.balanceUsdTicks),
    usdOfTicks(a.heldUsdTicks),
    a.metered ? 'yes' : 'no',
    limitText(a.limits.requestsPerMinute),
    limitText(a.limits.maxActiveTasks),
    isoSeconds(a.createdAt),
    describeModels(a.models),
  ];
}

/**
 * Prints accounts as they are read, a page at a time, whatever their number: the columns take
 * their widths from the header and the first page, and a later cell that is wider only pushes its
 * own line. Two spaces between columns; the last one is not padded, so no line ends in spaces.
 */
export class AccountTable {
  private widths: number[] | undefined;

  constructor(private readonly out: (line: string) => void) {}

  page(accounts: readonly AccountView[]): void {
    const rows = accounts.map(row);
    if (!this.widths) {
      this.widths = HEADER.map((h, col) => Math.max(h.length, ...rows.map((r) => r[col].length)));
      this.line(HEADER);
    }
    for (const r of rows) this.line(r);
  }

  private line(cells: readonly string[]): void {
    const widths = this.widths ?? [];
    this.out(
      cells
        .map((cell, col) => (col === cells.length - 1 ? cell : cell.padEnd(widths[col])))
        .join('  ')
        .trimEnd(),
    );
  }
}

/** One account, a field a line: what `accounts show` prints. */
export function accountDetails(a: AccountView): string[] {
  const fields: Array<[string, string]> = [
    ['id', a.id],
    ['models', describeModels(a.models)],
    ['metered', a.metered ? 'yes' : 'no'],
    ['balance', `${usdOfTicks(a.balanceUsdTicks)} (${a.balanceUsdTicks} ticks)`],
    ['held', `${usdOfTicks(a.heldUsdTicks)} (${a.heldUsdTicks} ticks)`],
    ['requests per minute', limitText(a.limits.requestsPerMinute)],
    ['max active tasks', limitText(a.limits.maxActiveTasks)],
    ['max task cost', a.limits.maxTaskUsdTicks === null ? 'none' : usdOfTicks(a.limits.maxTaskUsdTicks)],
    ['max daily spend', a.limits.maxDailyUsdTicks === null ? 'none' : usdOfTicks(a.limits.maxDailyUsdTicks)],
    ['price group', a.priceGroup ?? 'the catalog'],
    ['service tiers', a.serviceTiers.join(',')],
    ['balance alert', a.balanceAlertUsdTicks === null ? 'none' : usdOfTicks(a.balanceAlertUsdTicks)],
    ['balance low since', a.balanceLowSince === null ? '-' : isoSeconds(a.balanceLowSince)],
    ['zero retention', a.zeroRetention ? 'yes' : 'no'],
    ['created', isoSeconds(a.createdAt)],
  ];
  const width = Math.max(...fields.map(([name]) => name.length));
  return fields.map(([name, value]) => `${`${name}:`.padEnd(width + 1)}  ${value}`);
}
