import { it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openSqlStores, type SqlStores } from '../../src/composition/open-sql-stores.ts';
import type { ClaimRequest, NewTask } from '../../src/store/task-store.ts';
import type { ServiceTier } from '../../src/domain/task.ts';
import { TaskEvents } from '../../src/domain/task-events.ts';
import { uuidv7 } from '../../src/domain/ids.ts';
import { createLogger } from '../../src/logging.ts';
import { forEachDatabase } from '../support/databases.ts';

// A lane claims by tier first (priority, default, then flex and batch lines), fairly within a
// tier; flex and batch hold at most their share of an owner's slots while other tiers' tasks are
// queued or running, and every slot when alone (docs/batch.md, "The claim order").
forEachDatabase('claim order by service tier', (database) => {
  let stores: SqlStores;
  let clock = 1_000_000;
  before(async () => {
    stores = await openSqlStores(database.location, { events: new TaskEvents(), logger: createLogger('silent') });
  });
  after(async () => stores?.close());
  const newTask = (accountId: string, backend: string, serviceTier: ServiceTier): NewTask => ({
    id: uuidv7(clock),
    accountId,
    family: 'A',
    kind: 'generate',
    model: 'm',
    backend,
    serviceTier,
    createdAt: clock++,
    params: { prompt: 'p', images: [], duration: 1, aspectRatio: '16:9', width: 320, height: 180, fps: 24 },
  });
  const request = (backend: string, owner = 'w'): ClaimRequest => ({
    owner,
    backend,
    leaseMs: 60_000,
    now: clock,
    maxRunningPerAccount: 0,
    lowRankSlots: 1,
  });

  it('claims priority, then default, then flex and batch, oldest first within each', async () => {
    const a = (await stores.accounts.ensureAccount('tiers-a', null, clock)).id;
    const b = (await stores.accounts.ensureAccount('tiers-b', null, clock)).id;
    const batch = await stores.tasks.insert(newTask(a, 'order', 'batch'));
    const flex = await stores.tasks.insert(newTask(b, 'order', 'flex'));
    const plain = await stores.tasks.insert(newTask(a, 'order', 'default'));
    const first = await stores.tasks.insert(newTask(b, 'order', 'priority'));
    // Unbounded share here: the order alone is under test.
    const open = { ...request('order'), lowRankSlots: 0 };
    const order = [];
    for (let i = 0; i < 4; i++) order.push((await stores.tasks.claim(open))?.task);
    assert.deepEqual(
      order.map((t) => t?.id),
      [first.id, plain.id, batch.id, flex.id],
    );
    assert.deepEqual(
      order.map((t) => t?.serviceTier),
      ['priority', 'default', 'batch', 'flex'],
    );
  });

  it('holds flex and batch to their share while other tiers are active, and gives them every slot alone', async () => {
    const a = (await stores.accounts.ensureAccount('share-a', null, clock)).id;
    for (let i = 0; i < 4; i++) await stores.tasks.insert(newTask(a, 'share', 'batch'));
    const interactive = await stores.tasks.insert(newTask(a, 'share', 'default'));
    const started = await stores.tasks.claim(request('share'));
    assert.equal(started?.task.id, interactive.id, 'the interactive task goes first');
    // The default task runs: batch lines get one slot of this owner's share, not more.
    const line = await stores.tasks.claim(request('share'));
    assert.equal(line?.task.serviceTier, 'batch');
    assert.equal(await stores.tasks.claim(request('share')), undefined, 'the share is full');
    assert.deepEqual(await stores.tasks.claimSeveral(request('share'), 3), [], 'also when claimed several at once');
    // Another process has a share of its own slots.
    assert.equal((await stores.tasks.claim(request('share', 'other')))?.task.serviceTier, 'batch');
    await stores.tasks.complete(started!.lease, { blobKey: 'k', bytes: 1, etag: 'e' }, clock, clock + 1000);
    // Alone, batch lines take every slot.
    const rest = await stores.tasks.claimSeveral(request('share'), 3);
    assert.equal(rest.length, 2);
  });

  it('keeps the share when claims of one process run at once', async () => {
    const a = (await stores.accounts.ensureAccount('race-a', null, clock)).id;
    for (let i = 0; i < 8; i++) await stores.tasks.insert(newTask(a, 'race', 'batch'));
    await stores.tasks.insert(newTask(a, 'race', 'default'));
    assert.equal((await stores.tasks.claim(request('race')))?.task.serviceTier, 'default');
    // A slot's completion claiming its next and idle slots woken at the same moment: each claim
    // read the running batch lines in its own snapshot, saw none, and each started one.
    // Connections open beforehand (PostgreSQL), so the claims do run at once rather than one by one.
    await Promise.all(Array.from({ length: 4 }, () => stores.tasks.get(uuidv7(clock))));
    const claims = await Promise.all([
      stores.tasks.claim(request('race')),
      stores.tasks.claim(request('race')),
      stores.tasks.claimSeveral(request('race'), 2),
      stores.tasks.claim(request('race')),
    ]);
    const lines = claims.flat().filter((c) => c !== undefined);
    assert.ok(lines.length <= 1, `${lines.length} batch lines started with a share of one`);
  });
});
