import { describe, it, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import type { TaskStore, NewTask } from './task-store.ts';
import type { AccountStore } from './account-store.ts';
import { uuidv7 } from '../domain/ids.ts';
import type { Lease } from '../domain/lease.ts';

export interface TaskStoreFixture {
  tasks: TaskStore;
  accounts: AccountStore;
  close(): Promise<void>;
}

/**
 * What every task store must do, run against each implementation (SQLite, PostgreSQL).
 * Times are explicit so nothing here depends on the wall clock.
 */
export function taskStoreContract(open: () => Promise<TaskStoreFixture>) {
  describe('task store contract', () => {
    let fx: TaskStoreFixture;
    let accountId: string;
    let clock = 1_000_000;
    const lease = 30_000;

    before(async () => {
      fx = await open();
      accountId = (await fx.accounts.ensureAccount('contract', null, clock)).id;
    });
    after(async () => fx?.close());

    const newTask = (backend = 'b1', owner = accountId): NewTask => ({
      id: uuidv7(clock),
      accountId: owner,
      family: 'A',
      kind: 'generate',
      model: 'm',
      backend,
      createdAt: clock++,
      params: { prompt: 'p', images: [], duration: 1, aspectRatio: '16:9', width: 320, height: 180, fps: 24 },
    });
    const held: Lease[] = [];
    const claim = async (backend = 'b1', owner = 'w1', maxRunningPerAccount = 0) => {
      const claimed = await fx.tasks.claim({ owner, backend, leaseMs: lease, now: clock, maxRunningPerAccount });
      if (claimed) held.push(claimed.lease);
      return claimed;
    };
    // Each case starts from an empty queue: whatever a case left queued or running is finished here.
    afterEach(async () => {
      for (const lane of ['b1', 'b2', 'b3'])
        while (await claim(lane, 'cleanup')) {
          /* drain */
        }
      for (const l of held.splice(0)) await fx.tasks.fail(l, { code: 'cleanup', message: '' }, clock);
    });

    it('inserts and reads back a task', async () => {
      const inserted = await fx.tasks.insert(newTask());
      const read = await fx.tasks.get(inserted.id);
      assert.equal(read?.status, 'queued');
      assert.deepEqual(read?.params, inserted.params);
      assert.equal(await fx.tasks.get('missing'), undefined);
    });

    it('lists the tasks created after a time, also those whose created_at trails their id a little', async () => {
      const owner = (await fx.accounts.ensureAccount('created-after', null, clock)).id;
      const at = (ms: number, createdAt = ms): NewTask => ({ ...newTask('listing', owner), id: uuidv7(ms), createdAt });
      const start = clock + 3_600_000;
      const early = await fx.tasks.insert(at(start - 1000));
      // Written by an older version: created_at taken a few seconds after the id, past the bound.
      const late = await fx.tasks.insert(at(start - 5000, start + 500));
      const recent = await fx.tasks.insert(at(start + 1000));
      const listed = await fx.tasks.list({ accountId: owner, family: 'A', limit: 10, createdAfter: start });
      assert.deepEqual(
        listed.map((task) => task.id),
        [recent.id, late.id],
      );
      assert.ok(!listed.some((task) => task.id === early.id));
      for (const task of [early, late, recent]) await fx.tasks.cancel(task.id, clock);
    });

    it('lists oldest first with order asc, the cursor then counting upwards', async () => {
      const owner = (await fx.accounts.ensureAccount('ascending', null, clock)).id;
      const at = (ms: number): NewTask => ({ ...newTask('listing', owner), id: uuidv7(ms), createdAt: ms });
      const made = [await fx.tasks.insert(at(clock + 1)), await fx.tasks.insert(at(clock + 2))];
      made.push(await fx.tasks.insert(at(clock + 3)));
      const query = { accountId: owner, family: 'A', limit: 2, order: 'asc' as const };
      const first = await fx.tasks.list(query);
      assert.deepEqual(
        first.map((task) => task.id),
        [made[0].id, made[1].id],
      );
      const next = await fx.tasks.list({ ...query, after: made[1].id, statuses: ['queued', 'failed'] });
      assert.deepEqual(
        next.map((task) => task.id),
        [made[2].id],
      );
      for (const task of made) await fx.tasks.cancel(task.id, clock);
    });

    it('ends a finished task now, and leaves an unfinished one alone', async () => {
      const queued = await fx.tasks.insert(newTask('end-now'));
      assert.equal(await fx.tasks.endNow(queued.id, clock), undefined);
      await fx.tasks.cancel(queued.id, clock);
      const ended = await fx.tasks.endNow(queued.id, clock + 5);
      assert.deepEqual([ended?.status, ended?.expiresAt], ['canceled', clock + 5]);
      assert.equal(await fx.tasks.endNow(queued.id, clock + 9), undefined);
    });

    it('claims the oldest task of its lane, once, and records the attempt', async () => {
      const first = await fx.tasks.insert(newTask('b2'));
      await fx.tasks.insert(newTask('b2'));
      await fx.tasks.insert(newTask('b3'));
      const claimed = await claim('b2');
      assert.equal(claimed?.task.id, first.id);
      assert.equal(claimed?.task.status, 'running');
      assert.equal(claimed?.task.attempts, 1);
      assert.equal((await claim('b2'))?.task.backend, 'b2');
      assert.equal(await claim('b2'), undefined);
      await fx.tasks.endAttempt(claimed!.lease, 'failed', 'boom', clock);
      const [record] = await fx.tasks.attempts(first.id);
      assert.deepEqual(
        {
          attempt: record.attempt,
          worker: record.worker,
          outcome: record.outcome,
          errorCode: record.errorCode,
          ended: record.endedAt !== null,
        },
        { attempt: claimed!.lease.token, worker: 'w1', outcome: 'failed', errorCode: 'boom', ended: true },
      );
    });

    it('serves accounts fairly: fewest running first, a per-account cap, oldest within an account', async () => {
      const big = (await fx.accounts.ensureAccount('contract-big', null, clock)).id;
      const small = (await fx.accounts.ensureAccount('contract-small', null, clock)).id;
      const bigTasks = [];
      for (let i = 0; i < 5; i++) bigTasks.push(await fx.tasks.insert(newTask('b1', big)));
      const smallTask = await fx.tasks.insert(newTask('b1', small));
      const lane = await fx.tasks.queueSnapshot('b1');
      assert.equal(lane.positionOf(smallTask), 0, 'the small account is next in line');
      assert.equal(lane.positionOf(bigTasks[3]), 4);
      assert.equal((await claim())?.task.id, bigTasks[0].id, 'equal running counts: the longest-waiting account');
      assert.equal(
        (await claim())?.task.id,
        smallTask.id,
        'then the account with fewer running tasks, despite the backlog',
      );
      assert.equal((await claim('b1', 'w1', 2))?.task.id, bigTasks[1].id);
      assert.equal(await claim('b1', 'w1', 2), undefined, 'the cap holds back the big account');
      assert.equal((await claim('b1', 'w1', 3))?.task.id, bigTasks[2].id);
    });

    it('claims several at once, in the order single claims would, within the cap', async () => {
      const one = (await fx.accounts.ensureAccount('contract-one', null, clock)).id;
      const two = (await fx.accounts.ensureAccount('contract-two', null, clock)).id;
      const ones = [];
      const twos = [];
      for (let i = 0; i < 3; i++) ones.push(await fx.tasks.insert(newTask('b3', one)));
      for (let i = 0; i < 3; i++) twos.push(await fx.tasks.insert(newTask('b3', two)));
      const got = await fx.tasks.claimSeveral(
        { owner: 'w2', backend: 'b3', leaseMs: lease, now: clock, maxRunningPerAccount: 2 },
        10,
      );
      held.push(...got.map((c) => c.lease));
      assert.deepEqual(
        got.map((c) => c.task.id),
        [ones[0].id, twos[0].id, ones[1].id, twos[1].id],
        'turns between accounts, two each',
      );
      for (const c of got) {
        const [record] = await fx.tasks.attempts(c.task.id);
        assert.deepEqual({ attempt: record.attempt, worker: record.worker }, { attempt: c.lease.token, worker: 'w2' });
      }
      assert.deepEqual(
        await fx.tasks.claimSeveral(
          { owner: 'w2', backend: 'b3', leaseMs: lease, now: clock, maxRunningPerAccount: 2 },
          10,
        ),
        [],
      );
    });

    it('cancels queued and running tasks in one statement, and not finished ones', async () => {
      const queued = await fx.tasks.insert(newTask());
      const canceled = await fx.tasks.cancel(queued.id, clock);
      assert.equal(canceled?.status, 'canceled');
      assert.deepEqual(canceled?.error, { code: 'canceled', message: 'The task was canceled.' });
      assert.equal(await fx.tasks.cancel(queued.id, clock), undefined);
      await fx.tasks.insert(newTask());
      const running = (await claim())!;
      assert.equal((await fx.tasks.cancel(running.task.id, clock))?.status, 'canceled');
      assert.equal(await fx.tasks.reportProgress(running.lease, 50), false, 'the worker is refused from then on');
      assert.equal(
        await fx.tasks.complete(running.lease, { blobKey: 'k', bytes: 1, etag: '"e"' }, clock, clock + 1),
        false,
      );
    });

    it('never hands one task to two concurrent claimers', async () => {
      for (let i = 0; i < 10; i++) await fx.tasks.insert(newTask());
      const results = await Promise.all(Array.from({ length: 25 }, (_, i) => claim('b1', `w${i}`)));
      const ids = results.filter(Boolean).map((r) => r!.task.id);
      assert.equal(ids.length, 10);
      assert.equal(new Set(ids).size, 10);
    });

    it('refuses writes from a lease that is no longer held (fencing)', async () => {
      await fx.tasks.insert(newTask());
      const first = (await claim())!;
      assert.ok(await fx.tasks.reportProgress(first.lease, 40));
      clock += lease + 1;
      assert.equal(await fx.tasks.reclaimExpired(clock, 5), 1);
      assert.equal((await fx.tasks.attempts(first.task.id))[0].outcome, 'lease_expired');
      const second = (await claim('b1', 'w2'))!;
      assert.equal(second.task.id, first.task.id);
      assert.ok(second.lease.token > first.lease.token);
      const result = { blobKey: 'k', bytes: 1, etag: '"e"' };
      assert.equal(
        await fx.tasks.complete(first.lease, result, clock, clock + 1000),
        false,
        'zombie completion refused',
      );
      assert.equal(await fx.tasks.renew(first.lease, lease, clock), undefined);
      assert.equal((await fx.tasks.get(first.task.id))?.status, 'running');
      assert.ok(await fx.tasks.complete(second.lease, result, clock, clock + 1000));
      const done = await fx.tasks.get(first.task.id);
      assert.equal(done?.status, 'succeeded');
      assert.equal(done?.progress, 100);
      assert.deepEqual(done?.result, result);
    });

    it('completes and claims the lane’s next task in one step, fairly; a refused completion claims none', async () => {
      const other = (await fx.accounts.ensureAccount('contract-next', null, clock)).id;
      const ours = [];
      for (let i = 0; i < 3; i++) ours.push(await fx.tasks.insert(newTask('b2')));
      const theirs = [await fx.tasks.insert(newTask('b2', other))];
      assert.equal((await claim('b2'))?.task.id, ours[0].id);
      const finishing = (await claim('b2'))!;
      assert.equal(finishing.task.id, theirs[0].id);
      assert.equal((await claim('b2'))?.task.id, ours[1].id);
      theirs.push(await fx.tasks.insert(newTask('b2', other)));
      const request = { owner: 'w3', backend: 'b2', leaseMs: lease, now: clock, maxRunningPerAccount: 0 };
      const result = { blobKey: 'k', bytes: 1, etag: '"e"' };
      const done = await fx.tasks.completeAndClaim(finishing.lease, result, clock, clock + 1000, request);
      if (done.next) held.push(done.next.lease);
      assert.equal(done.completed, true);
      assert.equal((await fx.tasks.get(finishing.task.id))?.status, 'succeeded');
      assert.equal((await fx.tasks.attempts(finishing.task.id))[0].outcome, 'succeeded');
      assert.equal(
        done.next?.task.id,
        theirs[1].id,
        'the account with fewer running tasks first, though the other one waits longer',
      );
      assert.deepEqual(
        { status: done.next?.task.status, owner: done.next?.lease.owner },
        { status: 'running', owner: 'w3' },
      );
      const [record] = await fx.tasks.attempts(theirs[1].id);
      assert.deepEqual(
        { attempt: record.attempt, worker: record.worker, ended: record.endedAt },
        { attempt: done.next!.lease.token, worker: 'w3', ended: null },
      );
      const again = await fx.tasks.completeAndClaim(finishing.lease, result, clock, clock + 1000, request);
      assert.deepEqual(again, { completed: false }, 'a second completion is refused and claims nothing');
      assert.equal((await fx.tasks.get(ours[2].id))?.status, 'queued');
    });

    it('renews a held lease so the reaper leaves it alone', async () => {
      await fx.tasks.insert(newTask());
      const held = (await claim())!;
      clock += lease - 1;
      assert.ok(await fx.tasks.renew(held.lease, lease, clock));
      clock += 2;
      assert.equal(await fx.tasks.reclaimExpired(clock, 5), 0);
      assert.ok(await fx.tasks.fail(held.lease, { code: 'x', message: 'y' }, clock));
      assert.deepEqual((await fx.tasks.get(held.task.id))?.error, { code: 'x', message: 'y' });
    });

    it('fails a task whose lease expired after its last attempt', async () => {
      const task = await fx.tasks.insert(newTask());
      await claim();
      clock += lease + 1;
      await fx.tasks.reclaimExpired(clock, 1);
      const failed = await fx.tasks.get(task.id);
      assert.equal(failed?.status, 'failed');
      assert.equal(failed?.error?.code, 'worker_lost');
    });

    it('retries later, and a released lease is claimable at once', async () => {
      const task = await fx.tasks.insert(newTask());
      const first = (await claim())!;
      assert.ok(await fx.tasks.retry(first.lease, { code: 'backend_down', message: 'm' }, clock + 5000));
      assert.equal(await claim(), undefined, 'not before availableAt');
      clock += 5000;
      const second = (await claim())!;
      assert.equal(second.task.id, task.id);
      assert.equal(second.task.attempts, 2);
      assert.deepEqual(await fx.tasks.leasedBy('w1'), [task.id], 'a claimed task is leased by its owner');
      assert.ok(await fx.tasks.release(second.lease, clock));
      assert.deepEqual(await fx.tasks.leasedBy('w1'), [], 'a released lease is no longer held');
      const third = (await claim())!;
      assert.equal(third.task.attempts, 2, 'a released attempt is not counted');
      await fx.tasks.complete(third.lease, { blobKey: 'k', bytes: 1, etag: '"e"' }, clock, clock + 10);
      assert.equal((await fx.tasks.get(task.id))?.error, null);
    });

    it('raises the revision with every change of status or progress, and with nothing else', async () => {
      const result = { blobKey: 'k', bytes: 1, etag: '"e"' };
      const task = await fx.tasks.insert(newTask('b3'));
      const revisionNow = async () => (await fx.tasks.get(task.id))!.revision;
      const steps: Array<[string, number]> = [['inserted', await revisionNow()]];
      const step = async (what: string) => steps.push([what, await revisionNow()]);
      const first = (await claim('b3'))!;
      await step('claimed');
      assert.ok(await fx.tasks.reportProgress(first.lease, 40));
      await step('progress');
      assert.ok(await fx.tasks.renew(first.lease, lease, clock));
      assert.ok(await fx.tasks.saveBackendState(first.lease, { upstream: 'u' }));
      assert.equal(await revisionNow(), steps.at(-1)![1], 'a renewal or a checkpoint is no change of state');
      assert.ok(await fx.tasks.release(first.lease, clock));
      await step('released');
      const second = (await claim('b3'))!;
      await step('claimed again');
      assert.ok(await fx.tasks.retry(second.lease, { code: 'backend_down', message: 'm' }, clock));
      await step('retried');
      await claim('b3');
      await step('claimed after the retry');
      clock += lease + 1;
      await fx.tasks.reclaimExpired(clock, 5);
      await step('reclaimed');
      const last = (await claim('b3'))!;
      await step('claimed a third time');
      assert.ok(await fx.tasks.complete(last.lease, result, clock, clock + 10));
      await step('completed');
      clock += 10;
      await fx.tasks.expireDue(clock, 100);
      await step('expired');
      assert.deepEqual(
        steps.map(([what, revision]) => [what, revision - steps[0][1]]),
        steps.map(([what], i) => [what, i]),
        'each change raised the revision by exactly one',
      );

      const canceled = await fx.tasks.insert(newTask('b3'));
      const failed = await fx.tasks.insert(newTask('b3'));
      const lost = await fx.tasks.insert(newTask('b3'));
      const zero = canceled.revision;
      assert.equal((await fx.tasks.cancel(canceled.id, clock))?.revision, zero + 1);
      const running = (await claim('b3'))!;
      assert.equal(running.task.id, failed.id);
      assert.ok(await fx.tasks.fail(running.lease, { code: 'x', message: 'y' }, clock));
      await claim('b3');
      clock += lease + 1;
      await fx.tasks.reclaimExpired(clock, 1);
      const revisions = await fx.tasks.revisions([canceled.id, failed.id, lost.id, task.id, 'missing']);
      assert.deepEqual(
        [...revisions.entries()].sort(),
        [
          [canceled.id, zero + 1],
          [failed.id, zero + 2],
          [lost.id, zero + 2],
          [task.id, steps.at(-1)![1]],
        ].sort(),
        'revisions read many tasks at once, and leave out ids that name none',
      );
      assert.equal((await fx.tasks.get(lost.id))?.status, 'failed');
      assert.deepEqual(await fx.tasks.revisions([]), new Map());
    });

    it('expires each due result exactly once, even with concurrent sweepers', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) {
        const task = await fx.tasks.insert(newTask());
        const held = (await claim())!;
        await fx.tasks.complete(held.lease, { blobKey: `k${i}`, bytes: 1, etag: '"e"' }, clock, clock + 100);
        ids.push(task.id);
      }
      const ours = (list: { id: string }[]) => list.map((s) => s.id).filter((id) => ids.includes(id));
      assert.deepEqual(ours(await fx.tasks.expireDue(clock, 100)), [], 'nothing is due before its time');
      clock += 100;
      const swept = (await Promise.all([fx.tasks.expireDue(clock, 100), fx.tasks.expireDue(clock, 100)])).flat();
      assert.equal(new Set(swept.map((s) => s.id)).size, swept.length, 'no task swept twice');
      assert.deepEqual(ours(swept).sort(), [...ids].sort());
      for (const id of ids) assert.equal((await fx.tasks.get(id))?.status, 'expired');
    });
  });
}
