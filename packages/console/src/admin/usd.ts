/**
 * Dollars typed by the operator ↔ integer USD ticks (10¹⁰ per USD), as decimal strings: digits are
 * moved, never multiplied in floating point, so "0.1" is exactly 1 000 000 000 ticks.
 */
const PLACES = 10;

/** "12.5" → "125000000000"; undefined with the reason when it is not a USD amount of up to 10 decimals. */
export function usdToTicks(text: string, opts: { positive?: boolean } = {}): { ticks?: string; error?: string } {
  const value = text.trim().replace(/^\$/, '');
  const match = /^(-?)(\d*)(?:\.(\d*))?$/.exec(value);
  if (!value || !match || (match[2] === '' && !match[3])) return { error: 'Enter an amount in USD, such as 12.50.' };
  const [, sign, whole, fraction = ''] = match;
  if (fraction.length > PLACES) return { error: 'At most 10 decimal places (one tick is $0.0000000001).' };
  const digits = `${whole}${fraction.padEnd(PLACES, '0')}`.replace(/^0+(?=\d)/, '');
  const ticks = BigInt(`${sign}${digits}`);
  if (opts.positive && ticks <= 0n) return { error: 'Enter an amount above zero.' };
  if (ticks > BigInt(Number.MAX_SAFE_INTEGER) || ticks < -BigInt(Number.MAX_SAFE_INTEGER))
    return { error: 'That amount is too large.' };
  return { ticks: ticks.toString() };
}

/** 125000000000 → "$12.50"; every digit kept, at least cents. */
export function ticksToUsd(ticks: number | string | null | undefined): string {
  if (ticks === null || ticks === undefined) return '—';
  const value = BigInt(ticks);
  const abs = value < 0n ? -value : value;
  const text = abs.toString().padStart(PLACES + 1, '0');
  const whole = text.slice(0, -PLACES);
  const fraction = text.slice(-PLACES).replace(/0+$/, '').padEnd(2, '0');
  return `${value < 0n ? '-' : ''}$${whole}.${fraction}`;
}
