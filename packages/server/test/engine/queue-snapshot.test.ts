import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { QueueSnapshot } from '../../src/domain/queue-snapshot.ts';

/** The position rule written out the slow way: own tasks ahead, plus min(their queue, that) per other account. */
function slowPosition(
  queued: Array<{ accountId: string; id: string }>,
  task: { accountId: string; id: string },
): number {
  const rank = queued.filter((q) => q.accountId === task.accountId && q.id < task.id).length;
  const lengths = new Map<string, number>();
  for (const q of queued) lengths.set(q.accountId, (lengths.get(q.accountId) ?? 0) + 1);
  let position = rank;
  for (const [account, n] of lengths) if (account !== task.accountId) position += Math.min(n, rank);
  return position;
}

describe('queue snapshot', () => {
  it('places tasks as fair claiming serves them', () => {
    const queued = [0, 1, 2, 3, 4]
      .map((i) => ({ accountId: 'big', id: `t${i}` }))
      .concat({ accountId: 'small', id: 't5' });
    const snapshot = new QueueSnapshot(queued);
    assert.equal(snapshot.positionOf({ accountId: 'small', id: 't5' }), 0);
    assert.equal(snapshot.positionOf({ accountId: 'big', id: 't0' }), 0);
    assert.equal(snapshot.positionOf({ accountId: 'big', id: 't3' }), 4);
    assert.equal(snapshot.positionOf({ accountId: 'new', id: 't9' }), 0, 'an account unseen by the snapshot is next');
  });

  it('agrees with the rule on random queues, including tasks newer than the snapshot', () => {
    let seed = 7;
    const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    for (let round = 0; round < 50; round++) {
      const queued = Array.from({ length: random(60) }, (_, i) => ({
        accountId: `a${random(6)}`,
        id: `t${String(i).padStart(3, '0')}`,
      }));
      const snapshot = new QueueSnapshot([...queued].reverse());
      for (const task of [...queued, { accountId: 'a1', id: 't999' }, { accountId: 'a9', id: 't998' }]) {
        assert.equal(snapshot.positionOf(task), slowPosition(queued, task), JSON.stringify(task));
      }
    }
  });
});
