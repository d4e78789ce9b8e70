/**
 * What a customer pays for a task canceled after an upstream that cannot cancel accepted it (the
 * upstream renders and bills on): nothing, a fixed fee, or the task's full price (its hold). Set
 * per relay channel in the backends file and per model in the catalog (`cancel_charge`), the
 * model's winning (docs/economics.md, "Cancels an upstream cannot stop").
 */
export type CancelCharge = { kind: 'none' } | { kind: 'full' } | { kind: 'fee'; usdTicks: number };

/** `"none"`, `"full"` or `{"fee_usd_ticks": N}` as a file writes it; `fail` names the file's entry. */
export function parseCancelCharge(value: unknown, fail: (what: string) => never): CancelCharge {
  if (value === 'none') return { kind: 'none' };
  if (value === 'full') return { kind: 'full' };
  const fee = (value as { fee_usd_ticks?: unknown } | null)?.fee_usd_ticks;
  if (typeof value === 'object' && value !== null && Object.keys(value).length === 1 && fee !== undefined) {
    if (!Number.isSafeInteger(fee) || (fee as number) < 0)
      fail('"cancel_charge.fee_usd_ticks" must be a whole number of USD ticks, at least 0');
    return { kind: 'fee', usdTicks: fee as number };
  }
  return fail('"cancel_charge" must be "none", "full" or {"fee_usd_ticks": <integer>}');
}

/** What a cancel costs under a policy, never more than was held. */
export function cancelCost(charge: CancelCharge, held: number): number {
  if (charge.kind === 'full') return held;
  if (charge.kind === 'fee') return Math.min(charge.usdTicks, held);
  return 0;
}
