import { ledgerContract } from '../../src/billing/ledger.contract.ts';
import { openSqlStores } from '../../src/composition/open-sql-stores.ts';
import { TaskEvents } from '../../src/domain/task-events.ts';
import { createLogger } from '../../src/logging.ts';
import { forEachDatabase } from '../support/databases.ts';

forEachDatabase('SQL ledger', (database) =>
  ledgerContract((effects) =>
    openSqlStores(database.location, { events: new TaskEvents(), logger: createLogger('silent'), effects }),
  ),
);
