/** 1 USD = 10¹⁰ ticks (xAI's unit): every price, balance and cost vidgen reports is an integer of ticks. */
export const TICKS_PER_USD = 10_000_000_000n;

/**
 * USD ticks as dollars, exactly: integer arithmetic only (a float would print 0.1 + 0.2 wrong), at
 * least cents, every further digit that is not zero. 5_000_000_000 → "$0.50", 1 → "$0.0000000001",
 * -25_000_000_000 → "-$2.50".
 */
export function formatUsdTicks(ticks: number | bigint): string {
  if (typeof ticks === 'number' && !Number.isSafeInteger(ticks))
    throw new RangeError(`not a whole number of ticks: ${ticks}`);
  const value = BigInt(ticks);
  const abs = value < 0n ? -value : value;
  const dollars = (abs / TICKS_PER_USD).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const fraction = (abs % TICKS_PER_USD).toString().padStart(10, '0').replace(/0+$/, '').padEnd(2, '0');
  return `${value < 0n ? '-' : ''}$${dollars}.${fraction}`;
}
