import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { KyselyPlugin } from 'kysely';
import { openSqlDatabase, type SqlDatabase } from '../../src/store/sql/database.ts';
import { SqlTaskStore } from '../../src/store/sql/sql-task-store.ts';
import { SqlAccountStore } from '../../src/store/sql/sql-account-store.ts';
import { ledgerEffects } from '../../src/billing/ledger-effects.ts';
import { webhookOutbox } from '../../src/webhooks/webhook-outbox.ts';
import { createModelCatalog } from '../../src/catalog/model-catalog.ts';
import { uuidv7 } from '../../src/engine/ids.ts';
import { createPostgresDatabase, createSqliteDatabase, type TestDatabase } from '../support/databases.ts';

// Every task of an unmetered account without webhook endpoints (most of them) goes through the
// ledger and the outbox when it ends. What they need to know is read by the task's own final
// statement (their lookups) and its price is set by it (completedColumns): they add no statement.
const catalog = createModelCatalog(
  { models: [{ id: 'm', family: 'B', backend: 'fx', resolution: '144p', durations: { min: 1, max: 10 }, price: { usd_ticks_per_second: 1000 } }] },
  { fx: ['generate'] },
);
for (const [name, create] of [['SQLite', createSqliteDatabase], ['PostgreSQL', createPostgresDatabase]] as const) {
  const created = await create();
  describe(`transition effects with nothing to do (${name})`, { skip: typeof created === 'string' ? created : false }, () => {
    let database: SqlDatabase;
    // Results, not queries: statements compiled once are run without passing the query transform.
    const statements: unknown[] = [];
    const counting: KyselyPlugin = {
      transformQuery: (args) => args.node,
      transformResult: async (args) => (statements.push(args.queryId), args.result),
    };
    before(async () => {
      database = await openSqlDatabase((created as TestDatabase).location);
    });
    after(async () => {
      await database?.close();
      await (created as TestDatabase).drop();
    });

    it('a completion is one statement (two on SQLite: the attempt row), and the task has its price', async () => {
      const tasks = new SqlTaskStore(database.db.withPlugin(counting), database.dialect, [ledgerEffects(catalog, Date.now), webhookOutbox({ maxAttempts: 3, clock: Date.now })]);
      const accountId = (await new SqlAccountStore(database.db).ensureAccount('free', null, 1)).id;
      const task = await tasks.insert({
        id: uuidv7(), accountId, family: 'B', kind: 'generate', model: 'm', backend: 'fx', createdAt: 1,
        params: { prompt: 'p', images: [], duration: 3, aspectRatio: '16:9', width: 256, height: 144, fps: 24 },
      });
      const { lease } = (await tasks.claim({ owner: 'w', backend: 'fx', leaseMs: 60_000, now: 2, maxRunningPerAccount: 0 }))!;
      statements.length = 0;
      assert.equal(await tasks.complete(lease, { blobKey: 'k', bytes: 1, etag: '"e"', durationSeconds: 2 }, 3, 1000), true);
      assert.equal(statements.length, database.dialect.writesInWith ? 1 : 2);
      assert.deepEqual((await tasks.get(task.id))?.usage, { costUsdTicks: 2000 });
      // A lease the store did not hand out itself (a copy): the ledger prices the task in its own write.
      const other = await tasks.insert({ ...task, id: uuidv7(), idempotencyKey: undefined });
      const copy = { ...(await tasks.claim({ owner: 'w', backend: 'fx', leaseMs: 60_000, now: 4, maxRunningPerAccount: 0 }))!.lease };
      assert.equal(await tasks.complete(copy, { blobKey: 'k', bytes: 1, etag: '"e"', durationSeconds: 1 }, 5, 1000), true);
      assert.deepEqual((await tasks.get(other.id))?.usage, { costUsdTicks: 1000 });
    });
  });
}
