import { describe, before, after } from 'node:test';
import { openSqlStores, type SqlStores } from '../../src/composition/open-sql-stores.ts';
import { webhookOutbox } from '../../src/webhooks/webhook-outbox.ts';
import { webhookStoreContract } from '../../src/webhooks/webhook-store.contract.ts';
import { TaskEvents } from '../../src/domain/task-events.ts';
import { createLogger } from '../../src/logging.ts';
import { createPostgresDatabase, createSqliteDatabase, type TestDatabase } from '../support/databases.ts';

for (const [name, create] of [
  ['SQLite', createSqliteDatabase],
  ['PostgreSQL', createPostgresDatabase],
] as const) {
  // A string is why the database is missing: a skip on a laptop (under CI=true it throws instead).
  const created = await create();
  describe(`webhook store (${name})`, { skip: typeof created === 'string' ? created : false }, () => {
    let db: TestDatabase;
    let stores: SqlStores;
    before(async () => {
      db = created as TestDatabase;
      const effects = [webhookOutbox({ maxAttempts: 3, clock: Date.now })];
      stores = await openSqlStores(db.location, { events: new TaskEvents(), logger: createLogger('silent'), effects });
    });
    after(async () => {
      await stores?.close();
      await db?.drop();
    });
    webhookStoreContract(() => stores);
  });
}
