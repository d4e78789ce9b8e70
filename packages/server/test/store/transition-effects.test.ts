import { it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openSqlStores, type SqlStores } from '../../src/composition/open-sql-stores.ts';
import type { TransitionEffects } from '../../src/store/sql/transition-effects.ts';
import type { NewTask } from '../../src/store/task-store.ts';
import type { Task } from '../../src/domain/task.ts';
import { TaskEvents } from '../../src/domain/task-events.ts';
import { uuidv7 } from '../../src/domain/ids.ts';
import { createLogger } from '../../src/logging.ts';
import { forEachDatabase } from '../support/databases.ts';

// The seam the ledger and the webhook outbox write through: effects commit or roll back with
// the task change they follow, and each final change is seen exactly once.
forEachDatabase('transition effects', (database) => {
  let stores: SqlStores;
  let accountId: string;
  let clock = Date.now();
  const seen: Array<[string, string]> = [];
  const refuse = new Set<string>();
  const effect: TransitionEffects = {
    async created(_trx, task) {
      if (refuse.has(task.id)) throw new Error('refused');
      seen.push(['created', task.id]);
    },
    finishedLookups: (eb) => ({
      account: eb.selectFrom('accounts').select('accounts.name').whereRef('accounts.id', '=', 'tasks.account_id'),
    }),
    async finished(_trx, task, looked) {
      if (refuse.has(task.id)) throw new Error('refused');
      seen.push([task.status, task.id]);
      lookedUp.push(looked);
    },
  };
  const lookedUp: Array<Record<string, unknown>> = [];
  before(async () => {
    stores = await openSqlStores(database.location, {
      events: new TaskEvents(),
      logger: createLogger('silent'),
      effects: [effect],
    });
    accountId = (await stores.accounts.ensureAccount('effects', null, clock)).id;
  });
  after(async () => {
    await stores?.close();
  });

  const newTask = (): NewTask => ({
    id: uuidv7(clock),
    accountId,
    family: 'A',
    kind: 'generate',
    model: 'm',
    backend: 'fx',
    createdAt: clock++,
    params: { prompt: 'p', images: [], duration: 1, aspectRatio: '16:9', width: 320, height: 180, fps: 24 },
  });
  const claim = async () =>
    (await stores.tasks.claim({ owner: 'w', backend: 'fx', leaseMs: 60_000, now: clock, maxRunningPerAccount: 0 }))!;

  it('a refused creation writes nothing', async () => {
    const task = newTask();
    refuse.add(task.id);
    await assert.rejects(stores.tasks.insert(task), /refused/);
    assert.equal(await stores.tasks.get(task.id), undefined);
  });

  it('each final change is seen once, with the task as it now is', async () => {
    const done = await stores.tasks.insert(newTask());
    const { lease } = await claim();
    assert.equal(lease.id, done.id);
    assert.equal(
      await stores.tasks.complete(lease, { blobKey: 'k', bytes: 1, etag: '"e"' }, clock, clock + 1000),
      true,
    );
    // A second completion (a zombie's late write) is refused and runs no effect.
    assert.equal(
      await stores.tasks.complete(lease, { blobKey: 'k', bytes: 1, etag: '"e"' }, clock, clock + 1000),
      false,
    );
    const canceled = await stores.tasks.insert(newTask());
    assert.equal((await stores.tasks.cancel(canceled.id, clock))?.status, 'canceled');
    assert.equal(await stores.tasks.cancel(canceled.id, clock), undefined);
    const expired = await stores.tasks.expireDue(clock + 2000, 10);
    assert.deepEqual(
      expired.map((t: Task) => t.id),
      [done.id],
    );
    assert.deepEqual(
      seen.filter(([, id]) => id === done.id),
      [
        ['created', done.id],
        ['succeeded', done.id],
        ['expired', done.id],
      ],
    );
    assert.deepEqual(
      seen.filter(([, id]) => id === canceled.id),
      [
        ['created', canceled.id],
        ['canceled', canceled.id],
      ],
    );
  });

  it("an effect's lookups are read by the finishing statement and handed to it", async () => {
    lookedUp.length = 0;
    const done = await stores.tasks.insert(newTask());
    await stores.tasks.complete((await claim()).lease, { blobKey: 'k', bytes: 1, etag: '"e"' }, clock, clock + 1000);
    const failed = await stores.tasks.insert(newTask());
    await stores.tasks.fail((await claim()).lease, { code: 'render_failed', message: 'm' }, clock);
    await stores.tasks.cancel((await stores.tasks.insert(newTask())).id, clock);
    await stores.tasks.expireDue(clock + 2000, 10);
    assert.ok(done.id < failed.id);
    assert.deepEqual(lookedUp, [
      { account: 'effects' },
      { account: 'effects' },
      { account: 'effects' },
      { account: 'effects' },
    ]);
  });

  it('a failing effect rolls the task change back', async () => {
    const task = await stores.tasks.insert(newTask());
    const { lease } = await claim();
    refuse.add(task.id);
    await assert.rejects(stores.tasks.fail(lease, { code: 'render_failed', message: 'm' }, clock), /refused/);
    assert.equal((await stores.tasks.get(task.id))?.status, 'running');
    refuse.delete(task.id);
    assert.equal(await stores.tasks.fail(lease, { code: 'render_failed', message: 'm' }, clock), true);
    assert.deepEqual(seen.at(-1), ['failed', task.id]);
  });
});
