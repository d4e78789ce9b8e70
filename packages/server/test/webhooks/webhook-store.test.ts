import { before, after } from 'node:test';
import { openSqlStores, type SqlStores } from '../../src/composition/open-sql-stores.ts';
import { webhookOutbox } from '../../src/webhooks/webhook-outbox.ts';
import { webhookStoreContract } from '../../src/webhooks/webhook-store.contract.ts';
import { TaskEvents } from '../../src/domain/task-events.ts';
import { createLogger } from '../../src/logging.ts';
import { forEachDatabase } from '../support/databases.ts';

forEachDatabase('webhook store', (database) => {
  let stores: SqlStores;
  before(async () => {
    const effects = [webhookOutbox({ maxAttempts: 3, clock: Date.now })];
    stores = await openSqlStores(database.location, {
      events: new TaskEvents(),
      logger: createLogger('silent'),
      effects,
    });
  });
  after(async () => {
    await stores?.close();
  });
  webhookStoreContract(() => stores);
});
