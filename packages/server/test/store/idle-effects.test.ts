import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { KyselyPlugin } from 'kysely';
import { openSqlDatabase, type SqlDatabase } from '../../src/store/sql/database.ts';
import { ledgerEffects } from '../../src/billing/ledger-effects.ts';
import { webhookOutbox } from '../../src/webhooks/webhook-outbox.ts';
import { createModelCatalog } from '../../src/catalog/model-catalog.ts';
import type { Task } from '../../src/engine/task.ts';
import { createSqliteDatabase, type TestDatabase } from '../support/databases.ts';

// Every task of an unmetered account without webhook endpoints (most of them) goes through the
// ledger and the outbox when it ends: what they need to know is read with the task's own change
// (their lookups), so the outbox issues no statement and the ledger only writes the price.
describe('transition effects with nothing to do', () => {
  let created: TestDatabase;
  let database: SqlDatabase;
  const statements: string[] = [];
  const counting: KyselyPlugin = {
    transformQuery: (args) => (statements.push(args.node.kind), args.node),
    transformResult: async (args) => args.result,
  };
  const catalog = createModelCatalog(
    { models: [{ id: 'm', family: 'B', backend: 'fx', resolution: '144p', durations: { min: 1, max: 10 }, price: { usd_ticks_per_second: 1000 } }] },
    { fx: ['generate'] },
  );
  const task = { id: 't', accountId: 'a', model: 'm', kind: 'generate', status: 'succeeded', result: { blobKey: 'k', bytes: 1, etag: '"e"', durationSeconds: 2 },
    params: { prompt: 'p', images: [], duration: 2, aspectRatio: '16:9', width: 256, height: 144, fps: 24 } } as unknown as Task;
  before(async () => {
    created = await createSqliteDatabase();
    database = await openSqlDatabase(created.location);
  });
  after(async () => {
    await database?.close();
    await created?.drop();
  });

  it('the outbox reads nothing when the lookup found no endpoint', async () => {
    statements.length = 0;
    await webhookOutbox({ maxAttempts: 3, clock: Date.now }).finished!(database.db.withPlugin(counting), task, { endpoints: 0 });
    assert.deepEqual(statements, []);
  });

  it('the ledger writes the price of a task without a hold, and reads nothing', async () => {
    statements.length = 0;
    await ledgerEffects(catalog, Date.now).finished!(database.db.withPlugin(counting), task, { hold: null, closed: 0 });
    assert.deepEqual(statements, ['UpdateQueryNode']);
  });
});
