import { it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openSqlStores, type SqlStores } from '../../src/composition/open-sql-stores.ts';
import { TaskEvents } from '../../src/domain/task-events.ts';
import { createLogger } from '../../src/logging.ts';
import { balanceLowOutbox } from '../../src/webhooks/balance-low-outbox.ts';
import { forEachDatabase, type TestDatabase } from '../support/databases.ts';

/** `count` sets of stores on one database, each with its own connections, as separate processes have. */
function storesOn(database: TestDatabase, count: number) {
  const all: SqlStores[] = [];
  before(async () => {
    for (let i = 0; i < count; i++)
      all.push(
        await openSqlStores(database.location, {
          events: new TaskEvents(),
          logger: createLogger('silent'),
          balanceLow: balanceLowOutbox({ maxAttempts: 3 }),
        }),
      );
  });
  after(async () => {
    for (const stores of all) await stores.close();
  });
  return all;
}

const alertsOf = async (stores: SqlStores, accountId: string) =>
  (await stores.eventLog.list(accountId, { limit: 100, type: 'account.balance_low' })).length;

// The alert's state lives on the plan row and flips in the transaction of the ledger entry that
// crosses: two stores on one database (two processes) deducting at once fire exactly one alert per
// crossing. PostgreSQL: the database several processes share.
forEachDatabase(
  'balance alert across processes',
  (database) => {
    const processes = storesOn(database, 2);
    const alerts = (accountId: string) => alertsOf(processes[0], accountId);
    it('fires once for concurrent deductions from two processes, and once more after a grant re-arms it', async () => {
      const [a, b] = processes;
      const { id } = await a.accounts.ensureAccount('concurrent-alert', null, Date.now());
      await a.ledger.setPlan(id, { metered: true, balanceAlertUsdTicks: 50 }, Date.now());
      await a.ledger.credit({ accountId: id, amountUsdTicks: 100, reason: 'grant' }, Date.now());
      // 20 deductions of 5, half through each store, all at once: 100 → 0, crossing 50 once.
      const deduct = (stores: SqlStores, i: number) =>
        stores.ledger.credit({ accountId: id, amountUsdTicks: -5, reason: `deduct ${i}` }, Date.now());
      await Promise.all(Array.from({ length: 20 }, (_, i) => deduct(i % 2 ? a : b, i)));
      assert.equal((await a.ledger.plan(id))?.balanceUsdTicks, 0);
      assert.equal(await alerts(id), 1);
      assert.ok((await b.ledger.plan(id))?.balanceLowSince);

      // A grant to exactly the threshold re-arms it (at it is not under it); the next tick under it fires again.
      await b.ledger.credit({ accountId: id, amountUsdTicks: 50, reason: 'top-up' }, Date.now());
      assert.equal((await a.ledger.plan(id))?.balanceLowSince, null);
      await Promise.all([deduct(a, 100), deduct(b, 101)]);
      assert.equal(await alerts(id), 2);
      const [latest] = await a.eventLog.list(id, { limit: 1 });
      const body = JSON.parse(latest.body);
      assert.deepEqual(
        [body.type, body.data.id, body.data.available_usd_ticks, body.data.threshold_usd_ticks],
        ['account.balance_low', 'concurrent-alert', 45, 50],
      );
    });
  },
  ['PostgreSQL'],
);

forEachDatabase('balance alert state', (database) => {
  const one = storesOn(database, 1);
  const alerts = (accountId: string) => alertsOf(one[0], accountId);
  it('a threshold set above the balance starts low and sends nothing; removing it clears the state', async () => {
    const [a] = one;
    const { id } = await a.accounts.ensureAccount('set-under', null, Date.now());
    await a.ledger.setPlan(id, { metered: true }, Date.now());
    await a.ledger.credit({ accountId: id, amountUsdTicks: 10, reason: 'grant' }, Date.now());
    const plan = await a.ledger.setPlan(id, { balanceAlertUsdTicks: 20 }, Date.now());
    assert.ok(plan.balanceLowSince, 'already under it');
    await a.ledger.credit({ accountId: id, amountUsdTicks: -1, reason: 'deduct' }, Date.now());
    assert.equal(await alerts(id), 0, 'nothing crossed');
    const cleared = await a.ledger.setPlan(id, { balanceAlertUsdTicks: null }, Date.now());
    assert.deepEqual([cleared.balanceAlertUsdTicks, cleared.balanceLowSince], [null, null]);
  });
});
