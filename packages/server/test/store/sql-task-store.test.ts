import { taskStoreContract } from '../../src/store/task-store.contract.ts';
import { openSqlStores } from '../../src/composition/open-sql-stores.ts';
import { TaskEvents } from '../../src/domain/task-events.ts';
import { createLogger } from '../../src/logging.ts';
import { forEachDatabase } from '../support/databases.ts';

// Built by the same function as the running service, so the dialect's fast read path and the
// wake-up bridge are the ones under test.
forEachDatabase('SQL task store', (database) =>
  taskStoreContract(async () => {
    const stores = await openSqlStores(database.location, { events: new TaskEvents(), logger: createLogger('silent') });
    return { tasks: stores.tasks, accounts: stores.accounts, close: () => stores.close() };
  }),
);
