import { it } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_RETRY_SCHEDULE, retryDelayMs } from '../../src/webhooks/retry-schedule.ts';

it('the default schedule doubles with ±25 % jitter, is capped, and spans about a day', () => {
  const s = DEFAULT_RETRY_SCHEDULE;
  assert.equal(
    retryDelayMs(1, s, () => 0.5),
    10_000,
  );
  assert.equal(
    retryDelayMs(2, s, () => 0.5),
    20_000,
  );
  assert.equal(
    retryDelayMs(1, s, () => 0),
    7_500,
  );
  assert.equal(
    retryDelayMs(1, s, () => 1),
    12_500,
  );
  assert.equal(
    retryDelayMs(40, s, () => 0.5),
    s.capMs,
  );
  let total = 0;
  for (let attempt = 1; attempt < s.maxAttempts; attempt++) total += retryDelayMs(attempt, s, () => 0.5);
  assert.ok(total > 20 * 3600_000 && total < 28 * 3600_000, `${total / 3600_000} h`);
});
