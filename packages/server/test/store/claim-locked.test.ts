import { it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { openSqlStores, type SqlStores } from '../../src/composition/open-sql-stores.ts';
import type { NewTask } from '../../src/store/task-store.ts';
import { TaskEvents } from '../../src/domain/task-events.ts';
import { uuidv7 } from '../../src/domain/ids.ts';
import { createLogger } from '../../src/logging.ts';
import { forEachDatabase } from '../support/databases.ts';

// A claim of one task starts the fairest account's oldest task in one statement. When another
// process holds that task (locked, not yet committed), the claim must still serve the next
// account in fair order, as a claim reading the order first does: no worker idles while work waits.
forEachDatabase(
  'PostgreSQL: a claim passes over a task another claimer holds',
  (database) => {
    let stores: SqlStores;
    let holder: pg.Client;
    let clock = 1_000_000;
    before(async () => {
      stores = await openSqlStores(database.location, { events: new TaskEvents(), logger: createLogger('silent') });
      holder = new pg.Client({ connectionString: database.location });
      await holder.connect();
    });
    after(async () => {
      await holder?.end();
      await stores?.close();
    });
    const newTask = (accountId: string): NewTask => ({
      id: uuidv7(clock),
      accountId,
      family: 'A',
      kind: 'generate',
      model: 'm',
      backend: 'b',
      createdAt: clock++,
      params: { prompt: 'p', images: [], duration: 1, aspectRatio: '16:9', width: 320, height: 180, fps: 24 },
    });

    it('serves the next account when the fairest one’s only task is locked', async () => {
      const first = (await stores.accounts.ensureAccount('first', null, clock)).id;
      const second = (await stores.accounts.ensureAccount('second', null, clock)).id;
      const held = await stores.tasks.insert(newTask(first));
      const next = await stores.tasks.insert(newTask(second));
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM tasks WHERE id = $1 FOR UPDATE', [held.id]);
      const request = { owner: 'w', backend: 'b', leaseMs: 60_000, now: clock, maxRunningPerAccount: 0 };
      assert.equal((await stores.tasks.claim(request))?.task.id, next.id);
      assert.equal(await stores.tasks.claim(request), undefined, 'the held task is skipped, not waited for');
      await holder.query('ROLLBACK');
      assert.equal((await stores.tasks.claim(request))?.task.id, held.id);
    });
  },
  ['PostgreSQL'],
);
