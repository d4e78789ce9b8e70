import { it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { KyselyPlugin } from 'kysely';
import pg from 'pg';
import { openSqlDatabase, type SqlDatabase } from '../../src/store/sql/database.ts';
import { SqlTaskStore } from '../../src/store/sql/sql-task-store.ts';
import { SqlAccountStore } from '../../src/store/sql/sql-account-store.ts';
import { SqlWebhookStore } from '../../src/webhooks/sql-webhook-store.ts';
import { ledgerEffects } from '../../src/billing/ledger-effects.ts';
import { webhookOutbox } from '../../src/webhooks/webhook-outbox.ts';
import { usageRollupEffects } from '../../src/billing/usage-rollup.ts';
import { createModelCatalog } from '../../src/catalog/model-catalog.ts';
import { uuidv7 } from '../../src/domain/ids.ts';
import { forEachDatabase } from '../support/databases.ts';

// Every task of an unmetered account without webhook endpoints (most of them) goes through the
// ledger and the outbox when it ends. What they need to know is read by the task's own final
// statement (their lookups) and its price is set by it (completedColumns): they add no statement.
// On PostgreSQL such a completion commits alone (idleOnCompletion): no BEGIN and COMMIT either. The
// hourly usage rollup, which writes for every task, writes within that one statement (completedWrite).
const catalog = createModelCatalog(
  {
    models: [
      {
        id: 'm',
        family: 'B',
        backend: 'fx',
        resolution: '144p',
        durations: { min: 1, max: 10 },
        price: { usd_ticks_per_second: 1000 },
      },
    ],
  },
  { fx: ['generate'] },
);
forEachDatabase('transition effects with nothing to do', (testDb) => {
  let database: SqlDatabase;
  // Results, not queries: statements compiled once are run without passing the query transform.
  const statements: unknown[] = [];
  const counting: KyselyPlugin = {
    transformQuery: (args) => args.node,
    transformResult: async (args) => (statements.push(args.queryId), args.result),
  };
  before(async () => {
    database = await openSqlDatabase(testDb.location);
  });
  after(async () => {
    await database?.close();
  });

  const effects = [
    ledgerEffects(catalog, Date.now),
    usageRollupEffects(Date.now),
    webhookOutbox({ maxAttempts: 3, clock: Date.now }),
  ];

  it('a completion is one statement (three on SQLite: the attempt row, the hour of usage), and the task has its price', async () => {
    const tasks = new SqlTaskStore(database.db.withPlugin(counting), database.dialect, effects);
    const accountId = (await new SqlAccountStore(database.db).ensureAccount('free', null, 1)).id;
    const task = await tasks.insert({
      id: uuidv7(),
      accountId,
      family: 'B',
      kind: 'generate',
      model: 'm',
      backend: 'fx',
      createdAt: 1,
      params: { prompt: 'p', images: [], duration: 3, aspectRatio: '16:9', width: 256, height: 144, fps: 24 },
    });
    const { lease } = (await tasks.claim({
      owner: 'w',
      backend: 'fx',
      leaseMs: 60_000,
      now: 2,
      maxRunningPerAccount: 0,
    }))!;
    statements.length = 0;
    assert.equal(
      await tasks.complete(lease, { blobKey: 'k', bytes: 1, etag: '"e"', durationSeconds: 2 }, 3, 1000),
      true,
    );
    assert.equal(statements.length, database.dialect.writesInWith ? 1 : 3);
    assert.deepEqual((await tasks.get(task.id))?.usage, { costUsdTicks: 2000 });
    // A lease the store did not hand out itself (a copy): the ledger prices the task in its own write.
    const other = await tasks.insert({ ...task, id: uuidv7(), idempotencyKey: undefined });
    const copy = {
      ...(await tasks.claim({ owner: 'w', backend: 'fx', leaseMs: 60_000, now: 4, maxRunningPerAccount: 0 }))!.lease,
    };
    assert.equal(
      await tasks.complete(copy, { blobKey: 'k', bytes: 1, etag: '"e"', durationSeconds: 1 }, 5, 1000),
      true,
    );
    assert.deepEqual((await tasks.get(other.id))?.usage, { costUsdTicks: 1000 });
    // Each completion counted once in its hour, whichever path it took.
    assert.deepEqual(await usageOf(database, accountId), [{ hour: 0, tasks: 2, spend: 3000, rendered: 3000 }]);
  });
});

async function usageOf(database: SqlDatabase, accountId: string) {
  const rows = await database.db
    .selectFrom('usage_hourly')
    .select(['hour', 'outcome', 'tasks', 'spend_usd_ticks', 'rendered_ms'])
    .where('account_id', '=', accountId)
    .execute();
  return rows.map((r) => ({
    hour: Number(r.hour),
    tasks: Number(r.tasks),
    spend: Number(r.spend_usd_ticks),
    rendered: Number(r.rendered_ms),
  }));
}

forEachDatabase(
  'PostgreSQL: round trips of a completion and the next claim',
  (testDb) => {
    let database: SqlDatabase;
    const sent: string[] = [];
    const query = pg.Client.prototype.query;
    before(async () => {
      // Before any connection is made: each one binds the method it finds then.
      pg.Client.prototype.query = function (this: pg.Client, config: unknown, ...rest: unknown[]) {
        sent.push(typeof config === 'string' ? config : (config as { text: string }).text);
        return (query as (...args: unknown[]) => unknown).call(this, config, ...rest);
      } as typeof query;
      database = await openSqlDatabase(testDb.location);
    });
    after(async () => {
      pg.Client.prototype.query = query;
      await database?.close();
    });
    const effects = [
      ledgerEffects(catalog, Date.now),
      usageRollupEffects(Date.now),
      webhookOutbox({ maxAttempts: 3, clock: Date.now }),
    ];
    const params = { prompt: 'p', images: [], duration: 3, aspectRatio: '16:9', width: 256, height: 144, fps: 24 };
    const request = { owner: 'w', backend: 'fx', leaseMs: 60_000, now: 2, maxRunningPerAccount: 0 };

    it('with nothing for the effects to do: two statements, no transaction; with an endpoint: a transaction that writes its delivery', async () => {
      const tasks = new SqlTaskStore(database.db, database.dialect, effects);
      const accountId = (await new SqlAccountStore(database.db).ensureAccount('round-trips', null, 1)).id;
      const insert = () =>
        tasks.insert({
          id: uuidv7(),
          accountId,
          family: 'B',
          kind: 'generate',
          model: 'm',
          backend: 'fx',
          createdAt: 1,
          params,
        });
      const first = await insert();
      const second = await insert();
      const third = await insert();
      const claimed = (await tasks.claim(request))!;
      sent.length = 0;
      const done = await tasks.completeAndClaim(
        claimed.lease,
        { blobKey: 'k', bytes: 1, etag: '"e"', durationSeconds: 3 },
        3,
        1000,
        request,
      );
      assert.deepEqual([done.completed, done.next?.task.id], [true, second.id]);
      assert.equal(sent.length, 2, sent.join('\n'));
      assert.ok(!sent.some((s) => /^(begin|commit)$/i.test(s)));
      assert.deepEqual(
        [(await tasks.get(first.id))?.usage, (await tasks.attempts(first.id))[0].outcome],
        [{ costUsdTicks: 3000 }, 'succeeded'],
      );
      assert.deepEqual(await usageOf(database, accountId), [{ hour: 0, tasks: 1, spend: 3000, rendered: 3000 }]);

      const endpoint = await new SqlWebhookStore(database.db, database.dialect).insertEndpoint({
        id: `wh_${uuidv7()}`,
        accountId,
        url: 'https://example.com/h',
        events: ['video.completed'],
        secret: 's',
        createdAt: 1,
      });
      const again = await tasks.completeAndClaim(
        done.next!.lease,
        { blobKey: 'k', bytes: 1, etag: '"e"', durationSeconds: 3 },
        3,
        1000,
        request,
      );
      assert.deepEqual([again.completed, again.next?.task.id], [true, third.id]);
      const deliveries = await new SqlWebhookStore(database.db, database.dialect).listDeliveries(endpoint.id, {
        limit: 10,
      });
      assert.deepEqual(
        deliveries.map((d) => [d.taskId, d.eventType]),
        [[second.id, 'video.completed']],
      );
      assert.deepEqual((await tasks.get(second.id))?.usage, { costUsdTicks: 3000 });
      assert.deepEqual(await usageOf(database, accountId), [{ hour: 0, tasks: 2, spend: 6000, rendered: 6000 }]);
    });
  },
  ['PostgreSQL'],
);
