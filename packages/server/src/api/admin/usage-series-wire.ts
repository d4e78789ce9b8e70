import { InvalidRequest } from '../../errors.ts';

const HOUR_MS = 3_600_000;
/** The longest window one series answers: about thirteen months of days. */
const MAX_WINDOW_MS = 400 * 24 * HOUR_MS;

/**
 * The hours a series covers, from `since` and `until` (Unix seconds; `until` defaults to now): the
 * rollup counts whole UTC hours, so `since` is rounded down to its hour and `until` up to the next.
 */
export function usageWindow(q: { since: string; until?: string }, now: number): { since: number; until: number } {
  const since = floorHour(seconds(q.since, 'since'));
  const until = Math.ceil((q.until === undefined ? now : seconds(q.until, 'until')) / HOUR_MS) * HOUR_MS;
  if (until <= since) throw new InvalidRequest('invalid_value', '`until` must be later than `since`.', 'until');
  if (until - since > MAX_WINDOW_MS)
    throw new InvalidRequest('invalid_value', 'A series covers at most 400 days: narrow `since` and `until`.', 'since');
  return { since, until };
}

/** The series as CSV, one line per bucket and group; USD as an exact decimal string. */
export function usageCsvOf(
  groupBy: string,
  rows: Array<{ start: number; group: string; tasks: number; spend_usd_ticks: number; rendered_seconds: number }>,
): string {
  const lines = [`start,${groupBy},tasks,spend_usd,spend_usd_ticks,rendered_seconds`];
  for (const r of rows)
    lines.push(
      [
        new Date(r.start * 1000).toISOString(),
        csvField(r.group),
        r.tasks,
        ticksToUsd(r.spend_usd_ticks),
        r.spend_usd_ticks,
        r.rendered_seconds,
      ].join(','),
    );
  return `${lines.join('\n')}\n`;
}

/** Integer ticks (10⁻¹⁰ USD) as a decimal string, exactly: digits are moved, never divided. */
export function ticksToUsd(ticks: number): string {
  const negative = ticks < 0;
  const digits = String(Math.abs(ticks)).padStart(11, '0');
  const whole = digits.slice(0, -10);
  const fraction = digits.slice(-10).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

function seconds(value: string, field: string): number {
  if (!/^\d{1,12}$/.test(value)) throw new InvalidRequest('invalid_value', `\`${field}\` must be Unix seconds.`, field);
  return Number(value) * 1000;
}

function floorHour(ms: number): number {
  return Math.floor(ms / HOUR_MS) * HOUR_MS;
}

/** A group name with a comma, quote or line break is quoted; a leading formula character is defused. */
function csvField(value: string): string {
  const safe = /^[=+\-@]/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}
