import { runTaskStoreContract } from '../../src/store/task-store.contract.ts';
import { openSqlStores } from '../../src/composition/open-sql-stores.ts';
import { TaskEvents } from '../../src/domain/task-events.ts';
import { createLogger } from '../../src/logging.ts';
import { createPostgresDatabase, createSqliteDatabase, type TestDatabase } from '../support/databases.ts';

// Built by the same function as the running service, so the dialect's fast read path and the
// wake-up bridge are the ones under test.
async function open(created: TestDatabase | string) {
  if (typeof created === 'string') return created;
  const stores = await openSqlStores(created.location, { events: new TaskEvents(), logger: createLogger('silent') });
  return {
    tasks: stores.tasks,
    accounts: stores.accounts,
    async close() {
      await stores.close();
      await created.drop();
    },
  };
}

runTaskStoreContract('SQLite', async () => open(await createSqliteDatabase()));
runTaskStoreContract('PostgreSQL', async () => open(await createPostgresDatabase()));
