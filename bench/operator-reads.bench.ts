/**
 * The operator console's reads (`/admin/v1/*`) on a store of --rows tasks against one of 1,000, two
 * API servers side by side, each measured right after the other (median of paired rounds, load beside
 * it), SQLite and PostgreSQL. Aim ≥ 0.8 for each:
 *  - the task list, a page of 20: unfiltered, by account, by status (failed), by account and status;
 *  - `usage/series` by hour and account over a fixed 48-hour window that holds the same tasks in both
 *    stores (the large store's other tasks ended before it);
 *  - the overview (the same 50 queued and 4 running tasks in both stores).
 * Both stores hold the same newest 1,000 tasks: the large one's others are older, as a history grows.
 *
 *   node --import tsx bench/operator-reads.bench.ts [--rows 100000] [--seconds 2] [--rounds 3]
 *     [--full: 1,000,000 rows, 5 s, 5 rounds]
 */
import autocannon from 'autocannon';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer, type ServerProcess } from '../test/e2e/support/process.ts';
import { openSqlDatabase } from '../packages/server/src/store/sql/database.ts';
import { createPostgresDatabase } from '../packages/server/test/support/databases.ts';
import { FULL, describeRatios, load, numberArg, paired } from './support/paired.ts';
import { seedOperatorStore, type SeededWindow } from './support/operator-store.ts';

const ROWS = numberArg('rows', FULL ? 1_000_000 : 100_000);
const SECONDS = numberArg('seconds', FULL ? 5 : 2);
const ROUNDS = numberArg('rounds', FULL ? 5 : 3);
const TOKEN = 'bench-admin-token-0123456789abcdef';

interface Store {
  server: ServerProcess;
  window: SeededWindow;
  drop(): Promise<void>;
}

async function openStore(kind: 'SQLite' | 'PostgreSQL', tasks: number): Promise<Store | string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'vidgen-bench-operator-'));
  let location = join(dataDir, 'vidgen.db');
  let dropDatabase = async () => {};
  if (kind === 'PostgreSQL') {
    const pg = await createPostgresDatabase();
    if (typeof pg === 'string') return pg;
    location = pg.location;
    dropDatabase = pg.drop;
  }
  const env: Record<string, string> = {
    VIDGEN_DATA_DIR: dataDir,
    VIDGEN_ROLE: 'api',
    VIDGEN_ADMIN_TOKEN: TOKEN,
    ...(kind === 'PostgreSQL' ? { VIDGEN_DATABASE_URL: location } : {}),
  };
  const server = await spawnServer(env, [], { keepLines: false });
  const database = await openSqlDatabase(location);
  try {
    const window = await seedOperatorStore(database, server.url, TOKEN, tasks);
    return {
      server,
      window,
      async drop() {
        await server.stop();
        await dropDatabase();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } finally {
    await database.close();
  }
}

async function rps(url: string): Promise<number> {
  const result = await autocannon({
    url,
    connections: 8,
    duration: SECONDS,
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  if (result.errors + result.non2xx > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

async function run(kind: 'SQLite' | 'PostgreSQL') {
  const started = Date.now();
  const small = await openStore(kind, 1000);
  if (typeof small === 'string') return console.log(`${kind}: skipped (${small})`);
  const large = await openStore(kind, ROWS);
  if (typeof large === 'string') throw new Error(large);
  console.log(
    `${kind}: loaded 1,000 and ${ROWS.toLocaleString('en')} tasks in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
  try {
    const { since, until } = small.window;
    const reads: Array<[string, string]> = [
      ['tasks, unfiltered', '/admin/v1/tasks?limit=20'],
      ['tasks ?account=', '/admin/v1/tasks?limit=20&account=acct-0'],
      ['tasks ?status=failed', '/admin/v1/tasks?limit=20&status=failed'],
      ['tasks ?account=&status=failed', '/admin/v1/tasks?limit=20&account=acct-0&status=failed'],
      [
        'usage/series 48 h by account',
        `/admin/v1/usage/series?bucket=hour&group_by=account&since=${since}&until=${until}`,
      ],
      ['overview', '/admin/v1/overview'],
    ];
    for (const [name, path] of reads) {
      await rps(small.server.url + path);
      const result = await paired(
        ROUNDS,
        () => rps(small.server.url + path),
        () => rps(large.server.url + path),
      );
      console.log(
        `${kind.padEnd(10)} ${name.padEnd(30)} 1k tasks ${result.baseline.toFixed(0)} req/s | ${ROWS.toLocaleString('en')} tasks ${result.subject.toFixed(0)} req/s | ${describeRatios(result)} | ${load()}`,
      );
    }
  } finally {
    await small.drop();
    await large.drop();
  }
}

console.log(`8 connections, ${SECONDS} s per measurement, ${ROUNDS} paired rounds, one API process per store`);
await run('SQLite');
await run('PostgreSQL');
