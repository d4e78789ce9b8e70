import { runTaskStoreContract } from '../../src/store/task-store.contract.ts';
import { openSqlDatabase } from '../../src/store/sql/database.ts';
import { SqlTaskStore } from '../../src/store/sql/sql-task-store.ts';
import { SqlAccountStore } from '../../src/store/sql/sql-account-store.ts';
import { createPostgresDatabase, createSqliteDatabase, type TestDatabase } from '../support/databases.ts';

async function open(created: TestDatabase | string) {
  if (typeof created === 'string') return created;
  const database = await openSqlDatabase(created.location);
  return {
    tasks: new SqlTaskStore(database.db, database.dialect),
    accounts: new SqlAccountStore(database.db),
    async close() {
      await database.close();
      await created.drop();
    },
  };
}

runTaskStoreContract('SQLite', async () => open(await createSqliteDatabase()));
runTaskStoreContract('PostgreSQL', async () => open(await createPostgresDatabase()));
