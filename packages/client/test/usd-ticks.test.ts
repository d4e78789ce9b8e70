import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatUsdTicks } from '../src/usd-ticks.ts';

describe('formatUsdTicks', () => {
  it('writes ticks as dollars exactly, at least cents, no trailing zeros beyond', () => {
    const cases: Array<[number | bigint, string]> = [
      [0, '$0.00'],
      [5_000_000_000, '$0.50'],
      [1, '$0.0000000001'],
      [10_000_000_000, '$1.00'],
      [12_345_678_901, '$1.2345678901'],
      [-25_000_000_000, '-$2.50'],
      [1_000_000_000_000_000, '$100,000.00'],
      [Number.MAX_SAFE_INTEGER, '$900,719.9254740991'],
      [123_456_789_012_345_678_901n, '$12,345,678,901.2345678901'],
    ];
    for (const [ticks, text] of cases) assert.equal(formatUsdTicks(ticks), text, String(ticks));
  });

  it('sums exactly where floating-point dollars would not: 0.1 + 0.2', () => {
    assert.equal(formatUsdTicks(1_000_000_000 + 2_000_000_000), '$0.30');
    assert.notEqual(String(0.1 + 0.2), '0.3');
  });

  it('refuses what is not a whole number of ticks', () => {
    assert.throws(() => formatUsdTicks(1.5), RangeError);
    assert.throws(() => formatUsdTicks(2 ** 60), RangeError);
  });
});
