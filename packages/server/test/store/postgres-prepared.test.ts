import { it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { openSqlDatabase, type SqlDatabase } from '../../src/store/sql/database.ts';
import { SqlTaskStore } from '../../src/store/sql/sql-task-store.ts';
import { SqlAccountStore } from '../../src/store/sql/sql-account-store.ts';
import { reusableQuery } from '../../src/store/sql/reusable-query.ts';
import { uuidv7 } from '../../src/domain/ids.ts';
import { forEachDatabase } from '../support/databases.ts';

// The statements every task runs are prepared once per connection and run by name, so PostgreSQL
// does not plan them again each time; a migration adding a column must not break them.
forEachDatabase(
  'PostgreSQL: statements built once run prepared',
  (testDb) => {
    let database: SqlDatabase;
    before(async () => {
      database = await openSqlDatabase(testDb.location);
    });
    after(async () => {
      await database?.close();
    });
    // One statement at a time: the pool hands back the same idle connection.
    const prepared = async () =>
      (await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(database.db)).rows.map(
        (r) => r.statement,
      );

    it('a task read and a claim run by name, and survive a column added under them', async () => {
      const tasks = new SqlTaskStore(database.db, database.dialect);
      const accountId = (await new SqlAccountStore(database.db).ensureAccount('prepared', null, 1)).id;
      const newTask = () => ({
        id: uuidv7(),
        accountId,
        family: 'B' as const,
        kind: 'generate' as const,
        model: 'm',
        backend: 'fx',
        createdAt: 1,
        params: { prompt: 'p', images: [], duration: 1, aspectRatio: '16:9', width: 256, height: 144, fps: 24 },
      });
      const task = await tasks.insert(newTask());
      await tasks.get(task.id);
      const claim = () => tasks.claim({ owner: 'w', backend: 'fx', leaseMs: 60_000, now: 2, maxRunningPerAccount: 0 });
      assert.equal((await claim())?.task.id, task.id);
      const statements = await prepared();
      assert.ok(
        statements.some((s) => /^select .* from "tasks" where "id" = \$1$/.test(s)),
        statements.join('\n'),
      );
      assert.ok(
        statements.some((s) => s.startsWith('with "next_rank" as materialized') && s.includes('"started" as (update')),
        statements.join('\n'),
      );
      await sql`ALTER TABLE tasks ADD COLUMN later_column integer`.execute(database.db);
      assert.equal((await tasks.get(task.id))?.status, 'running');
      const next = await tasks.insert(newTask());
      assert.equal((await claim())?.task.id, next.id);
    });

    it('runs the claim on its generic plan with a batch queued, and other statements with their values', async () => {
      const tasks = new SqlTaskStore(database.db, database.dialect);
      const accountId = (await new SqlAccountStore(database.db).ensureAccount('generic', null, 1)).id;
      const insert = (serviceTier: 'batch' | 'default') =>
        tasks.insert({
          ...{ id: uuidv7(), accountId, family: 'B' as const, kind: 'generate' as const, model: 'm', backend: 'gp' },
          createdAt: 1,
          serviceTier,
          params: { prompt: 'p', images: [], duration: 1, aspectRatio: '16:9', width: 256, height: 144, fps: 24 },
        });
      for (let i = 0; i < 200; i++) await insert('batch');
      // With statistics that show the skew, PostgreSQL had preferred a plan for each run's values.
      await sql`ANALYZE tasks`.execute(database.db);
      const claim = () =>
        tasks.claim({ owner: 'g', backend: 'gp', leaseMs: 60_000, now: 2, maxRunningPerAccount: 0, lowRankSlots: 1 });
      for (let i = 0; i < 8; i++) {
        const queued = await insert('default');
        assert.equal((await claim())?.task.id, queued.id);
      }
      const { rows } = await sql<{ generic: number; custom: number }>`
        SELECT generic_plans AS generic, custom_plans AS custom FROM pg_prepared_statements
        WHERE statement LIKE 'with "next_rank"%'`.execute(database.db);
      assert.ok(rows.length > 0);
      for (const row of rows) assert.deepEqual([Number(row.custom), Number(row.generic) > 0], [0, true]);
      // A statement with values that is not built once keeps PostgreSQL's own choice of plan.
      await database.db.selectFrom('tasks').select('id').where('backend', '=', 'gp').limit(1).execute();
      const mode = await sql<{ plan_cache_mode: string }>`SHOW plan_cache_mode`.execute(database.db);
      assert.equal(mode.rows[0].plan_cache_mode, 'auto');
    });

    it('a prepared statement whose result changed shape is prepared again under another name', async () => {
      const read = reusableQuery<[string]>(database.db.selectFrom('accounts').selectAll().where('name', '=', ''), 1);
      const run = async () => (await database.db.executeQuery(read('prepared'))).rows.length;
      assert.equal(await run(), 1);
      await sql`ALTER TABLE accounts ADD COLUMN later_column integer`.execute(database.db);
      // PostgreSQL refuses the old plan once ("cached plan must not change result type"), not for good.
      await run().catch((err) => assert.equal(err.code, '0A000'));
      assert.equal(await run(), 1);
    });
  },
  ['PostgreSQL'],
);
