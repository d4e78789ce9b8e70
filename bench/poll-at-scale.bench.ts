/**
 * Requests whose cost could grow with the backlog, each against its small twin on the same
 * server in the same run (median of paired rounds, load average beside it), SQLite and PostgreSQL:
 *  - listing `GET /v1/video/generations?status=FAILURE` of an account with --rows tasks vs one
 *    with 1,000 (aim ≥ 0.8);
 *  - polls of queued tasks, --queued of them, each request a different task, vs polling one
 *    queued task (aim ≥ 0.8; positions come from a per-lane snapshot);
 *  - a poll of a done task with --rows tasks in the store vs with 1,000 (p99, aim within 1.2×).
 *
 *   node --import tsx bench/poll-at-scale.bench.ts [--rows 100000] [--queued 10000] [--seconds 3]
 *     [--rounds 3] [--full: 1,000,000 rows, 8 s, 5 rounds]
 */
import autocannon from 'autocannon';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { spawnServer, runServerCommand } from '../test/e2e/support/process.ts';
import { openSqlDatabase, type SqlDatabase } from '../packages/server/src/store/sql/database.ts';
import { createPostgresDatabase } from '../packages/server/test/support/databases.ts';
import { FULL, describeRatios, load, numberArg, paired } from './support/paired.ts';

const ROWS = numberArg('rows', FULL ? 1_000_000 : 100_000);
const QUEUED = numberArg('queued', 10_000);
const SECONDS = numberArg('seconds', FULL ? 8 : 3);
const ROUNDS = numberArg('rounds', FULL ? 5 : 3);
/** Both listed accounts hold this many FAILURE tasks, spread over all their tasks: the same page, from 1k or from --rows. */
const FAILED = 50;

interface Bulk {
  prefix: string;
  accountId: string;
  status: string;
  backend: string;
  from: number;
  count: number;
  /** Every n-th task is failed (0: none). */
  failedEvery: number;
}

/** Adds tasks in one statement (a recursive series works on both databases). */
async function addTasks(database: SqlDatabase, b: Bulk) {
  const params = JSON.stringify({
    prompt: 'bulk',
    images: [],
    duration: 5,
    aspectRatio: '16:9',
    width: 1280,
    height: 720,
    fps: 24,
  });
  const id =
    database.dialect.name === 'postgres'
      ? sql`${b.prefix} || lpad(n::text, 10, '0')`
      : sql`${b.prefix} || substr('0000000000' || n, -10, 10)`;
  const status =
    b.failedEvery > 0 ? sql`CASE WHEN n % ${b.failedEvery} = 0 THEN 'failed' ELSE 'succeeded' END` : sql`${b.status}`;
  await sql`
    WITH RECURSIVE series(n) AS (SELECT CAST(${b.from} AS BIGINT) UNION ALL SELECT n + 1 FROM series WHERE n < ${b.from + b.count - 1})
    INSERT INTO tasks (id, account_id, family, kind, model, backend, status, progress, params, attempts, lease_token, available_at, created_at, finished_at, result_key, result_bytes, result_etag, expires_at)
    SELECT ${id}, ${b.accountId}, 'B', 'generate', 'video-v1-5s', ${b.backend}, ${status}, 0, ${params}, 1, 1, n, n, n, 'videos/x.mp4', 1000, '"e"', 4102444800000
    FROM series`.execute(database.db);
}

async function addMany(database: SqlDatabase, b: Bulk) {
  for (let done = 0; done < b.count; done += 100_000)
    await addTasks(database, { ...b, from: b.from + done, count: Math.min(100_000, b.count - done) });
}

async function measure(url: string | (() => string), key: string) {
  const paths = typeof url === 'string' ? undefined : url;
  const result = await autocannon({
    url: typeof url === 'string' ? url : url(),
    connections: 8,
    duration: SECONDS,
    headers: { authorization: `Bearer ${key}` },
    ...(paths
      ? { requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, path: new URL(paths()).pathname }) }] }
      : {}),
  });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

async function run(name: string, location: string | undefined, dataDir: string) {
  const env: Record<string, string> = {
    VIDGEN_DATA_DIR: dataDir,
    VIDGEN_ROLE: 'api',
    ...(location ? { VIDGEN_DATABASE_URL: location } : {}),
  };
  const keyOf = async (account: string) =>
    (await runServerCommand(['keys', 'create', '--account', account], env)).stdout.trim();
  const [smallKey, largeKey] = [await keyOf('bench-small'), await keyOf('bench-large')];
  const server = await spawnServer({ ...env, VIDGEN_LOG_LEVEL: 'info' }, [], { keepLines: false });
  const database = await openSqlDatabase(location ?? join(dataDir, 'vidgen.db'));
  try {
    const submit = await fetch(`${server.url}/v1/video/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${largeKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'video-v1-5s', prompt: 'x' }),
    });
    const queuedId = ((await submit.json()) as { task_id: string }).task_id;
    const row = await database.db
      .selectFrom('tasks')
      .select(['account_id', 'backend'])
      .where('id', '=', queuedId)
      .executeTakeFirstOrThrow();
    const small = (
      await database.db
        .selectFrom('api_keys')
        .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
        .select('accounts.id')
        .where('accounts.name', '=', 'bench-small')
        .executeTakeFirstOrThrow()
    ).id;
    const started = Date.now();
    await addMany(database, {
      prefix: 'small-',
      accountId: small,
      status: 'succeeded',
      backend: row.backend,
      from: 1,
      count: 1000,
      failedEvery: 1000 / FAILED,
    });
    await addMany(database, {
      prefix: 'large-',
      accountId: row.account_id,
      status: 'succeeded',
      backend: row.backend,
      from: 1,
      count: ROWS,
      failedEvery: Math.floor(ROWS / FAILED),
    });
    await addMany(database, {
      prefix: 'queued-',
      accountId: row.account_id,
      status: 'queued',
      backend: row.backend,
      from: 1,
      count: QUEUED,
      failedEvery: 0,
    });
    if (database.dialect.name === 'postgres') await sql`ANALYZE tasks`.execute(database.db);
    console.log(
      `${name}: loaded ${(ROWS + QUEUED + 1000).toLocaleString('en')} tasks in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
    const list = `${server.url}/v1/video/generations?status=FAILURE`;
    await measure(list, smallKey);
    const listing = await paired(
      ROUNDS,
      async () => (await measure(list, smallKey)).rps,
      async () => (await measure(list, largeKey)).rps,
    );
    console.log(
      `${name.padEnd(10)} listing ?status=FAILURE: 1k tasks ${listing.baseline.toFixed(0)} req/s | ${ROWS.toLocaleString('en')} tasks ${listing.subject.toFixed(0)} req/s | ${describeRatios(listing)} | ${load()}`,
    );
    const poll = (id: string) => `${server.url}/v1/video/generations/${id}`;
    const anyQueued = () => poll(`queued-${String(1 + Math.floor(Math.random() * QUEUED)).padStart(10, '0')}`);
    await measure(anyQueued, largeKey);
    const polls = await paired(
      ROUNDS,
      async () => (await measure(poll(queuedId), largeKey)).rps,
      async () => (await measure(anyQueued, largeKey)).rps,
    );
    console.log(
      `${name.padEnd(10)} poll of queued tasks: one id ${polls.baseline.toFixed(0)} req/s | ${QUEUED.toLocaleString('en')} queued, a different id each request ${polls.subject.toFixed(0)} req/s | ${describeRatios(polls)} | ${load()}`,
    );
    const doneSmall = poll('small-0000000001');
    const doneLarge = poll('large-0000000001');
    const done = await paired(
      ROUNDS,
      async () => (await measure(doneSmall, smallKey)).p99,
      async () => (await measure(doneLarge, largeKey)).p99,
      true,
    );
    console.log(
      `${name.padEnd(10)} poll of a done task, p99: small account ${done.baseline} ms | large store ${done.subject} ms | ${describeRatios(done)} (small p99 / large p99) | ${load()}`,
    );
  } finally {
    await database.close();
    await server.stop();
  }
}

console.log(`8 connections, ${SECONDS} s per measurement, ${ROUNDS} paired rounds, one API process`);
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
