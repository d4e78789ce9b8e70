import { it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { openSqlDatabase, type SqlDatabase } from '../../src/store/sql/database.ts';
import { SqlOperatorReads } from '../../src/store/sql/sql-operator-reads.ts';
import { ACTIVE_COUNT_CAP } from '../../src/store/operator-reads.ts';
import { forEachDatabase } from '../support/databases.ts';

// The overview's "now": queued and running tasks per model, counted by probes of an index, each
// count stopping at the cap, so a long queue costs the overview no more than a short one.
forEachDatabase('the operator overview counts active tasks per model', (testDb) => {
  let database: SqlDatabase;
  before(async () => {
    database = await openSqlDatabase(testDb.location);
    await database.db.insertInto('accounts').values({ id: 'acct', name: 'acct', created_at: 0 }).execute();
  });
  after(async () => {
    await database?.close();
  });

  /** `count` tasks of `model` in `status`, ids from `prefix`, in one statement. */
  const add = async (prefix: string, model: string, status: string, count: number) => {
    const id =
      database.dialect.name === 'postgres'
        ? sql`${prefix} || lpad(n::text, 10, '0')`
        : sql`${prefix} || substr('0000000000' || n, -10, 10)`;
    await sql`
      WITH RECURSIVE series(n) AS (SELECT CAST(1 AS BIGINT) UNION ALL SELECT n + 1 FROM series WHERE n < ${count})
      INSERT INTO tasks (id, account_id, family, kind, model, backend, status, progress, params, attempts, lease_token,
        available_at, created_at, finished_at)
      SELECT ${id}, 'acct', 'B', 'generate', ${model}, 'mock', ${status}, 0, '{"prompt":"p"}', 0, 1, n, n,
        CASE WHEN ${status} IN ('queued', 'running') THEN NULL ELSE n END
      FROM series`.execute(database.db);
  };

  it('gives each model its queued and running counts, exact below the cap and the cap above it', async () => {
    const reads = new SqlOperatorReads(database.db);
    assert.deepEqual((await reads.overview(Date.now())).active, [], 'nothing active');
    await add('a-q-', 'model-a', 'queued', 3);
    await add('a-r-', 'model-a', 'running', 2);
    await add('b-r-', 'model-b', 'running', 1);
    await add('c-s-', 'model-c', 'succeeded', 50);
    await add('d-q-', 'model-d', 'queued', ACTIVE_COUNT_CAP + 5);
    const overview = await reads.overview(Date.now());
    assert.deepEqual(overview.active, [
      { model: 'model-a', queued: 3, running: 2 },
      { model: 'model-b', queued: 0, running: 1 },
      { model: 'model-d', queued: ACTIVE_COUNT_CAP, running: 0 },
    ]);
    assert.equal(overview.oldestQueuedAt, 1);
  });
});
