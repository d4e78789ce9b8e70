import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { openSqlStores, type SqlStores } from '../../src/composition/open-sql-stores.ts';
import { TaskEvents } from '../../src/domain/task-events.ts';
import { TaskWatch } from '../../src/engine/task-watch.ts';
import { uuidv7 } from '../../src/domain/ids.ts';
import type { Task } from '../../src/domain/task.ts';
import type { TaskStore } from '../../src/store/task-store.ts';
import { createLogger } from '../../src/logging.ts';
import { forEachDatabase } from '../support/databases.ts';

const params = { prompt: 'p', images: [], duration: 1, aspectRatio: '16:9', width: 320, height: 180, fps: 24 };
const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
};

forEachDatabase('task watch', (database) => {
  let stores: SqlStores;
  let accountId: string;
  before(async () => {
    stores = await openSqlStores(database.location, { events: new TaskEvents(), logger: createLogger('silent') });
    accountId = (await stores.accounts.ensureAccount('watch', null, Date.now())).id;
  });
  after(() => stores?.close());

  /** The store, counting what the watch asks of it. */
  const counted = () => {
    const reads = new Map<string, number>();
    let rechecks = 0;
    const tasks: Pick<TaskStore, 'get' | 'revisions'> = {
      get: (id) => (reads.set(id, (reads.get(id) ?? 0) + 1), stores.tasks.get(id)),
      revisions: (ids) => (rechecks++, stores.tasks.revisions(ids)),
    };
    return { tasks, reads, rechecks: () => rechecks };
  };
  const insert = async (backend: string) =>
    stores.tasks.insert({
      id: uuidv7(),
      accountId,
      family: 'B',
      kind: 'generate',
      model: 'm',
      backend,
      params,
      createdAt: Date.now(),
    });

  it('reads a task once per wake-up for all its watchers, and gives each every newer revision once', async () => {
    const events = new TaskEvents();
    const store = counted();
    const watch = new TaskWatch({ tasks: store.tasks, events, recheckMs: 3_600_000 });
    const task = await insert('watch-shared');
    const seen: number[][] = Array.from({ length: 100 }, () => []);
    const stops = seen.map((got) => watch.watch(task.id, task.revision, (t: Task) => got.push(t.revision)));
    await until(() => store.reads.get(task.id) === 1);
    const claimed = (await stores.tasks.claim({
      owner: 'w',
      backend: 'watch-shared',
      leaseMs: 60_000,
      now: Date.now(),
      maxRunningPerAccount: 0,
    }))!;
    events.taskChanged(task.id);
    await until(() => seen.every((got) => got.length === 1));
    assert.equal(store.reads.get(task.id), 2, 'one read to start, one per wake-up: not one per watcher');
    await stores.tasks.reportProgress(claimed.lease, 50);
    events.taskChanged(task.id);
    events.taskChanged(task.id);
    await until(() => seen.every((got) => got.length === 2));
    for (const got of seen) assert.deepEqual(got, [task.revision + 1, task.revision + 2]);
    for (const stop of stops) stop();
    assert.equal(watch.size, 0, 'a task nobody watches is forgotten');
    await stores.tasks.cancel(task.id, Date.now());
    watch.close();
  });

  it('without a wake-up, reads only the tasks a recheck found changed, all revisions in one query', async () => {
    const events = new TaskEvents();
    const store = counted();
    const watch = new TaskWatch({ tasks: store.tasks, events, recheckMs: 20 });
    const quiet = await Promise.all(Array.from({ length: 20 }, () => insert('watch-quiet')));
    const moving = await insert('watch-moving');
    const given: Task[] = [];
    const stops = [...quiet, moving].map((t) => watch.watch(t.id, t.revision, (task) => given.push(task)));
    await until(() => [...quiet, moving].every((t) => store.reads.get(t.id) === 1));
    // Changed behind the watch's back (another process, no hint): the recheck finds it.
    await stores.tasks.cancel(moving.id, Date.now());
    await until(() => given.length === 1);
    const checks = store.rechecks();
    await until(() => store.rechecks() >= checks + 3);
    assert.equal(given[0].status, 'canceled');
    for (const t of quiet) assert.equal(store.reads.get(t.id), 1, 'an unchanged task is not read again');
    assert.equal(store.reads.get(moving.id), 2);
    for (const stop of stops) stop();
    assert.equal(watch.size, 0);
    for (const t of quiet) await stores.tasks.cancel(t.id, Date.now());
    watch.close();
  });
});

forEachDatabase(
  'wake-up bridge',
  (database) => {
    it('carries task changes to the other processes on the database, and not back to their own', async () => {
      const here = new TaskEvents();
      const there = new TaskEvents();
      const logger = createLogger('silent');
      const a = await openSqlStores(database.location, { events: here, logger });
      const b = await openSqlStores(database.location, { events: there, logger });
      try {
        assert.equal(a.wakeupsCrossProcesses, true);
        const arrived = new Map<string, boolean>();
        const echoed: string[] = [];
        there.onChanged((id, remote) => arrived.set(id, remote));
        here.onChanged((id, remote) => {
          if (remote) echoed.push(id);
        });
        // Many at once, as a busy worker writes progress: they go in a few hints, every one arrives.
        const ids = Array.from({ length: 400 }, () => uuidv7());
        for (const id of ids) here.taskChanged(id);
        await until(() => ids.every((id) => arrived.has(id)));
        assert.ok(
          ids.every((id) => arrived.get(id) === true),
          'flagged as remote, so the other process does not send them on',
        );
        const mark = uuidv7();
        there.taskChanged(mark);
        await until(() => echoed.includes(mark));
        assert.deepEqual(echoed, [mark], "a process's own hints do not come back to it");
      } finally {
        await a.close();
        await b.close();
      }
    });
  },
  ['PostgreSQL'],
);
