import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { faultLog } from '../../src/engine/fault-log.ts';

// A fault met at every poll is said once, then once a minute with the count left unsaid, and its end once.
describe('faultLog', () => {
  it('says a lasting fault once, then at a bounded rate, then its end', () => {
    let now = 0;
    const log = faultLog(60_000, () => now);
    const said: number[] = [];
    for (let poll = 0; poll < 1109; poll++, now += 541) {
      const { say, unsaid } = log.failed();
      if (say) said.push(unsaid);
    }
    // 1,109 failures over 10 minutes: 10 lines, not 1,109; each after the first counts the rest.
    assert.equal(said.length, 10);
    assert.equal(said[0], 0);
    assert.ok(said.slice(1).every((n) => n > 100));
    assert.equal(log.recovered(), 1109 * 541);
    assert.equal(log.recovered(), undefined, 'the end is said once');
    assert.deepEqual(log.failed(), { say: true, unsaid: 0 }, 'a new fault is said at once');
  });
});
