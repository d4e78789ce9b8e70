/**
 * Poll latency as the store grows: p99 of `GET /v1/video/generations/{id}` with 1,000 tasks
 * in the store, then with 1,000,000 (same server, same task), on SQLite and PostgreSQL.
 * The baseline is the small store in the same run; aim: p99 within 1.2×.
 *
 *   node --import tsx bench/poll-at-scale.bench.ts [--rows 1000000] [--seconds 8]
 */
import autocannon from 'autocannon';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { spawnServer, runServerCommand } from '../test/e2e/support/process.ts';
import { openSqlDatabase, type SqlDatabase } from '../packages/server/src/store/sql/database.ts';
import { createPostgresDatabase } from '../packages/server/test/support/databases.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const ROWS = arg('rows', 1_000_000);
const SECONDS = arg('seconds', 8);

/** Adds `count` finished tasks of another account in one statement (a recursive series works on both databases). */
async function addTasks(database: SqlDatabase, accountId: string, from: number, count: number) {
  const params = JSON.stringify({ prompt: 'bulk', images: [], duration: 5, aspectRatio: '16:9', width: 1280, height: 720, fps: 24 });
  const id = database.dialect.name === 'postgres' ? sql`'bulk-' || lpad(n::text, 10, '0')` : sql`'bulk-' || substr('0000000000' || n, -10, 10)`;
  await sql`
    WITH RECURSIVE series(n) AS (SELECT CAST(${from} AS BIGINT) UNION ALL SELECT n + 1 FROM series WHERE n < ${from + count - 1})
    INSERT INTO tasks (id, account_id, family, kind, model, backend, status, progress, params, attempts, lease_token, available_at, created_at, finished_at, result_key, result_bytes, result_etag, expires_at)
    SELECT ${id}, ${accountId}, 'B', 'generate', 'video-v1-5s', 'renderer', 'succeeded', 100, ${params}, 1, 1, n, n, n, 'videos/x.mp4', 1000, '"e"', 4102444800000
    FROM series`.execute(database.db);
}

async function p99(url: string, key: string) {
  const result = await autocannon({ url, connections: 8, duration: SECONDS, headers: { authorization: `Bearer ${key}` } });
  return { p99: result.latency.p99, p50: result.latency.p50, rps: result.requests.average, errors: result.errors + result.non2xx };
}

async function run(name: string, location: string | undefined, dataDir: string) {
  const env: Record<string, string> = { VIDGEN_DATA_DIR: dataDir, VIDGEN_ROLE: 'api', ...(location ? { VIDGEN_DATABASE_URL: location } : {}) };
  const key = (await runServerCommand(['keys', 'create', '--account', 'bench'], env)).stdout.trim();
  const server = await spawnServer({ ...env, VIDGEN_LOG_LEVEL: 'info' });
  const database = await openSqlDatabase(location ?? join(dataDir, 'vidgen.db'));
  try {
    const other = (await database.db.insertInto('accounts').values({ id: 'acct-bulk', name: 'bulk', models: null, created_at: 0 }).returning('id').executeTakeFirstOrThrow()).id;
    const submit = await fetch(`${server.url}/v1/video/generations`, {
      method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'video-v1-5s', prompt: 'x' }),
    });
    const url = `${server.url}/v1/video/generations/${((await submit.json()) as { task_id: string }).task_id}`;
    await addTasks(database, other, 1, 999);
    await p99(url, key); // warm-up
    const small = await p99(url, key);
    const started = Date.now();
    for (let done = 999; done < ROWS - 1; done += 100_000) await addTasks(database, other, done + 1, Math.min(100_000, ROWS - 1 - done));
    if (database.dialect.name === 'postgres') await sql`ANALYZE tasks`.execute(database.db);
    const loadSeconds = ((Date.now() - started) / 1000).toFixed(0);
    await p99(url, key);
    const large = await p99(url, key);
    console.log(`${name.padEnd(10)} 1k tasks: p50 ${small.p50} ms p99 ${small.p99} ms (${small.rps.toFixed(0)} req/s) | ${ROWS.toLocaleString('en')} tasks (loaded in ${loadSeconds} s): p50 ${large.p50} ms p99 ${large.p99} ms (${large.rps.toFixed(0)} req/s) | p99 ratio ${(large.p99 / small.p99).toFixed(2)} | errors ${small.errors + large.errors}`);
  } finally {
    await database.close();
    await server.stop();
  }
}

console.log(`8 connections, ${SECONDS} s per measurement, one API process`);
const sqliteDir = await mkdtemp(join(tmpdir(), 'vidgen-bench-scale-'));
await run('SQLite', undefined, sqliteDir);
await rm(sqliteDir, { recursive: true, force: true });
const pg = await createPostgresDatabase();
if (typeof pg === 'string') console.log(`PostgreSQL: skipped (${pg})`);
else {
  const pgDir = await mkdtemp(join(tmpdir(), 'vidgen-bench-scale-'));
  await run('PostgreSQL', pg.location, pgDir);
  await pg.drop();
  await rm(pgDir, { recursive: true, force: true });
}
