import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { openSqlDatabase, type SqlDatabase } from '../../src/store/sql/database.ts';
import { SqlTaskStore } from '../../src/store/sql/sql-task-store.ts';
import { SqlAccountStore } from '../../src/store/sql/sql-account-store.ts';
import { TaskEvents } from '../../src/domain/task-events.ts';
import { TaskService } from '../../src/engine/task-service.ts';
import { createModelCatalog } from '../../src/catalog/model-catalog.ts';
import { createSqliteDatabase, type TestDatabase } from '../support/databases.ts';

type Deps = ConstructorParameters<typeof TaskService>[0];

// A create whose task is stored is answered with it, whatever fails after the insert: clients with
// no idempotency key (OpenRouter's provider) submit again after an error, and would pay twice.
describe('a stored create', () => {
  let created: TestDatabase;
  let database: SqlDatabase;
  before(async () => {
    created = await createSqliteDatabase();
    database = await openSqlDatabase(created.location);
  });
  after(async () => {
    await database?.close();
    await created?.drop();
  });

  it('is answered with its task even when the wake-up after the insert throws', async () => {
    const raw = JSON.parse(
      await readFile(new URL('../../src/catalog/default-models.json', import.meta.url), 'utf8'),
    ) as unknown;
    const catalog = createModelCatalog(raw, { renderer: ['generate', 'edit', 'extend'] });
    const account = await new SqlAccountStore(database.db).ensureAccount('stored-create', null, Date.now());
    const store = new SqlTaskStore(database.db, database.dialect);
    const events = new TaskEvents();
    events.onQueued(() => {
      throw new Error('a listener that breaks');
    });
    const discarded: unknown[] = [];
    const service = new TaskService({
      tasks: store,
      catalog,
      // No inputs in this create: nothing to accept, and nothing must be discarded.
      inputs: { accept: async () => [], discard: async (inputs: unknown[]) => void discarded.push(...inputs) },
      events,
      clock: Date.now,
    } as unknown as Deps);
    const { task } = await service.submit(account, {
      family: 'R',
      everyModel: true,
      kind: 'generate',
      model: 'grok-imagine-video-1.5',
      prompt: 'a kite',
      inputs: [],
      duration: 1,
    });
    assert.equal(task.family, 'R');
    assert.equal(task.model, 'grok-imagine-video-1.5', 'a gateway shape takes a model another family serves');
    assert.equal((await store.get(task.id))?.status, 'queued');
    assert.deepEqual(discarded, []);
  });
});
