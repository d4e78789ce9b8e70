import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LanePositions } from '../../src/engine/lane-positions.ts';
import { QueueSnapshot } from '../../src/domain/queue-snapshot.ts';

// Lane snapshots are read at most once a second, no more often than 20× their own read time, and
// polls answer from the last one while the next is read (engine/lane-positions.ts).
describe('lane positions', () => {
  /** A lane whose reads the test finishes by hand, with a clock and a stopwatch it sets. */
  function lane() {
    const reads: Array<{ resolve: (s: QueueSnapshot) => void; reject: (e: Error) => void }> = [];
    const time = { now: 0, watch: 0 };
    const positions = new LanePositions(
      () => new Promise<QueueSnapshot>((resolve, reject) => reads.push({ resolve, reject })),
      () => time.now,
      () => time.watch,
    );
    const queue = (...ids: string[]) => new QueueSnapshot(ids.map((id) => ({ accountId: 'a', id })));
    const task = (id: string) => ({ backend: 'renderer', accountId: 'a', id });
    return { reads, time, positions, queue, task };
  }

  it('makes only the first poll of a lane wait; later ones answer from the last snapshot while the next is read', async () => {
    const { reads, time, positions, queue, task } = lane();
    const first = positions.positionOf(task('t3'));
    assert.equal(reads.length, 1);
    reads[0].resolve(queue('t1', 't2', 't3'));
    assert.equal(await first, 2);
    time.now = 500;
    assert.equal(await positions.positionOf(task('t3')), 2);
    assert.equal(reads.length, 1, 'no read within a second');
    time.now = 1000;
    assert.equal(await positions.positionOf(task('t3')), 2, 'answered from the old snapshot');
    assert.equal(reads.length, 2, 'while the next is read');
    assert.equal(await positions.positionOf(task('t3')), 2);
    assert.equal(reads.length, 2, 'one read at a time');
    reads[1].resolve(queue('t3'));
    await new Promise((r) => setImmediate(r));
    assert.equal(await positions.positionOf(task('t3')), 0);
  });

  it('reads a lane no more often than 20 times what its last read took', async () => {
    const { reads, time, positions, queue, task } = lane();
    const first = positions.positionOf(task('t1'));
    time.watch = 200; // this read took 200 ms: the next one waits 4 s
    reads[0].resolve(queue('t1'));
    await first;
    time.now = 3999;
    await positions.positionOf(task('t1'));
    assert.equal(reads.length, 1);
    time.now = 4000;
    await positions.positionOf(task('t1'));
    assert.equal(reads.length, 2);
  });

  it('lets the waiting poll see a failed read, and reads again at the next poll', async () => {
    const { reads, positions, queue, task } = lane();
    const first = positions.positionOf(task('t1'));
    reads[0].reject(new Error('database unavailable'));
    await assert.rejects(first, /database unavailable/);
    const second = positions.positionOf(task('t1'));
    assert.equal(reads.length, 2);
    reads[1].resolve(queue('t1'));
    assert.equal(await second, 0);
  });
});
