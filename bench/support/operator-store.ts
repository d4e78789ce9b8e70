import { sql } from 'kysely';
import type { SqlDatabase } from '../../packages/server/src/store/sql/database.ts';

const HOUR_MS = 3_600_000;
/** 1,000 tasks end 48 hours apart from first to last. */
const STEP_MS = 172_800;
const ACCOUNTS = ['acct-0', 'acct-1', 'acct-2', 'acct-3'];
const QUEUED = 50;
const RUNNING = 4;
const CHUNK = 100_000;

/** The 48 hours (Unix seconds, [since, until)) that hold the newest 1,000 tasks of any seeded store. */
export interface SeededWindow {
  since: number;
  until: number;
}

/**
 * Fills a migrated store for the operator bench by bulk SQL: four accounts made through the admin API,
 * `count` ended tasks one every 172.8 s up to the hour before now (every 20th failed), 50 queued and 4
 * running, and the hourly usage rollup of the ended ones (as migration 0190 fills it), hour after hour as
 * the service writes it (in the order of a hash it would scatter one window's rows over the whole table). A task's account,
 * model and outcome are functions of its distance from the newest, so every store holds the same newest
 * 1,000 tasks, and the same rollup rows in the window returned.
 */
export async function seedOperatorStore(
  database: SqlDatabase,
  url: string,
  token: string,
  count: number,
): Promise<SeededWindow> {
  for (const id of ACCOUNTS) {
    const res = await fetch(`${url}/admin/v1/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id }),
    });
    if (!res.ok) throw new Error(`creating ${id}: ${res.status} ${await res.text()}`);
  }
  const rows = await database.db.selectFrom('accounts').select(['id', 'name']).execute();
  const ids = ACCOUNTS.map((name) => rows.find((r) => r.name === name)!.id);
  const newest = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - 1;
  for (let done = 0; done < count; done += CHUNK)
    await addEnded(database, ids, newest, count, done + 1, Math.min(done + CHUNK, count));
  await addActive(database, ids[0], newest, count);
  const hour = sql`(finished_at / ${sql.lit(HOUR_MS)}) * ${sql.lit(HOUR_MS)}`;
  await sql`INSERT INTO usage_hourly (hour, account_id, model, tier, outcome, error_code, tasks, spend_usd_ticks,
      rendered_ms)
    SELECT ${hour}, account_id, model, 'default', status, COALESCE(error_code, ''), COUNT(*),
      SUM(cost_usd_ticks), SUM(result_duration_ms)
    FROM tasks WHERE finished_at IS NOT NULL
    GROUP BY ${hour}, account_id, model, status, COALESCE(error_code, '')
    ORDER BY 1`.execute(database.db);
  // Settled as a store that has been running is: statistics known, and no autovacuum of the fresh rows
  // competing with the measurement.
  if (database.dialect.name === 'postgres') await sql`VACUUM ANALYZE`.execute(database.db);
  const lastHour = Math.floor(newest / HOUR_MS) * HOUR_MS;
  return { since: (lastHour - 47 * HOUR_MS) / 1000, until: (lastHour + HOUR_MS) / 1000 };
}

function idOf(database: SqlDatabase) {
  return database.dialect.name === 'postgres'
    ? sql`'task-' || lpad(n::text, 10, '0')`
    : sql`'task-' || substr('0000000000' || n, -10, 10)`;
}

const PARAMS = JSON.stringify({
  prompt: 'bulk',
  images: [],
  duration: 5,
  aspectRatio: '16:9',
  width: 1280,
  height: 720,
  fps: 24,
});

/** Ended tasks numbered [from, to] of `count`; task `count` ends at `newest`, each earlier one a step before. */
async function addEnded(
  database: SqlDatabase,
  accounts: string[],
  newest: number,
  count: number,
  from: number,
  to: number,
) {
  const k = sql`(${count} - n)`;
  const account = sql`CASE ${k} % 4 WHEN 0 THEN ${accounts[0]} WHEN 1 THEN ${accounts[1]} WHEN 2 THEN ${accounts[2]}
    ELSE ${accounts[3]} END`;
  const failed = sql`${k} % 20 = 7`;
  const finished = sql`${newest} - ${k} * ${STEP_MS}`;
  await sql`
    WITH RECURSIVE series(n) AS (SELECT CAST(${from} AS BIGINT) UNION ALL SELECT n + 1 FROM series WHERE n < ${to})
    INSERT INTO tasks (id, account_id, family, kind, model, backend, status, progress, params, error_code, attempts,
      lease_token, available_at, created_at, finished_at, result_key, result_bytes, result_etag, result_duration_ms,
      cost_usd_ticks, expires_at)
    SELECT ${idOf(database)}, ${account}, 'B', 'generate', 'model-' || (${k} % 3), 'mock',
      CASE WHEN ${failed} THEN 'failed' ELSE 'succeeded' END, 100, ${PARAMS},
      CASE WHEN ${failed} THEN 'upstream_error' ELSE NULL END, 1, 1, ${finished} - 60000, ${finished} - 60000,
      ${finished}, 'videos/x.mp4', 1000, '"e"', 5000, CASE WHEN ${failed} THEN 0 ELSE 10000000000 END, 4102444800000
    FROM series`.execute(database.db);
}

/** The same queued and running tasks in every store, newer than every ended one. */
async function addActive(database: SqlDatabase, accountId: string, newest: number, count: number) {
  await sql`
    WITH RECURSIVE series(n) AS (SELECT CAST(${count + 1} AS BIGINT) UNION ALL SELECT n + 1 FROM series
      WHERE n < ${count + QUEUED + RUNNING})
    INSERT INTO tasks (id, account_id, family, kind, model, backend, status, progress, params, attempts, lease_token,
      available_at, created_at)
    SELECT ${idOf(database)}, ${accountId}, 'B', 'generate', 'model-' || (n % 3), 'mock',
      CASE WHEN n > ${count + QUEUED} THEN 'running' ELSE 'queued' END, 0, ${PARAMS}, 0, 1, ${newest} + n - ${count},
      ${newest} + n - ${count}
    FROM series`.execute(database.db);
}
