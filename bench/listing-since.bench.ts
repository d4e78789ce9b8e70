/**
 * `GET …?created_after=` of a large account vs a small one, at the store (SQLite and PostgreSQL):
 * a window holding the newest 2 tasks, listed from an account of --rows tasks and from one of
 * 1,000. Ids carry the creation time (uuidv7), so the listing walks the id index down to the
 * window's start and stops; without that bound it read every older task (aim ≥ 0.8).
 *
 *   node --import tsx bench/listing-since.bench.ts [--rows 50000] [--reads 200] [--rounds 5]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlStores } from '../packages/server/src/composition/open-sql-stores.ts';
import { TaskEvents } from '../packages/server/src/domain/task-events.ts';
import { createLogger } from '../packages/server/src/logging.ts';
import { uuidv7 } from '../packages/server/src/domain/ids.ts';
import { createPostgresDatabase } from '../packages/server/test/support/databases.ts';
import { describeRatios, load, numberArg, paired } from './support/paired.ts';

const ROWS = numberArg('rows', 50_000);
const READS = numberArg('reads', 200);
const ROUNDS = numberArg('rounds', 5);

async function run(name: string, location: string) {
  const stores = await openSqlStores(location, { events: new TaskEvents(), logger: createLogger('silent') });
  const start = Date.now() - 30 * 86_400_000;
  const fill = async (account: string, count: number) => {
    const accountId = (await stores.accounts.ensureAccount(account, null, start)).id;
    for (let i = 0; i < count; i++) {
      const at = start + i * 1000;
      await stores.tasks.insert({
        id: uuidv7(at),
        accountId,
        family: 'B',
        kind: 'generate',
        model: 'm',
        backend: 'b',
        createdAt: at,
        params: { prompt: 'p', images: [], duration: 1, aspectRatio: '16:9', width: 320, height: 180, fps: 24 },
      });
    }
    return { accountId, createdAfter: start + (count - 3) * 1000 };
  };
  try {
    const small = await fill('since-small', 1000);
    const large = await fill('since-large', ROWS);
    /** Listings per second of one account's window. */
    const rate = (account: { accountId: string; createdAfter: number }) => async () => {
      const began = performance.now();
      for (let i = 0; i < READS; i++) await stores.tasks.list({ family: 'B', limit: 20, ...account });
      return READS / ((performance.now() - began) / 1000);
    };
    await rate(small)();
    const result = await paired(ROUNDS, rate(small), rate(large));
    console.log(
      `${name.padEnd(10)} ?created_after (2 tasks in the window): 1k tasks ${result.baseline.toFixed(0)}/s | ${ROWS.toLocaleString('en')} tasks ${result.subject.toFixed(0)}/s | ${describeRatios(result)} | ${load()}`,
    );
  } finally {
    await stores.close();
  }
}

const dir = await mkdtemp(join(tmpdir(), 'vidgen-bench-since-'));
await run('SQLite', join(dir, 'vidgen.db'));
await rm(dir, { recursive: true, force: true });
const pg = await createPostgresDatabase();
if (typeof pg === 'string') console.log(`PostgreSQL: skipped (${pg})`);
else {
  await run('PostgreSQL', pg.location);
  await pg.drop();
}
