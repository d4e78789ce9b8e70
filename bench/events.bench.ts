/**
 * `GET /v1/events` paging at the store (SQLite and PostgreSQL): the newest 1,000 events of an
 * account with --events events vs one with 1,000, walked with `after` in pages of 100; the same
 * with `?type=` (a quarter of the events), and a `created_after` window. Event ids carry their
 * time (uuidv7), so each page is a range of the (account, id) or (account, type, id) index: the cost
 * must not grow with the account's history (aim ≥ 0.8).
 *
 *   node --import tsx bench/events.bench.ts [--events 100000] [--rounds 5] [--passes 20]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { sql } from 'kysely';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlStores, type SqlStores } from '../packages/server/src/composition/open-sql-stores.ts';
import { openSqlDatabase, type SqlDatabase } from '../packages/server/src/store/sql/database.ts';
import { TaskEvents } from '../packages/server/src/domain/task-events.ts';
import { createLogger } from '../packages/server/src/logging.ts';
import { eventId } from '../packages/server/src/webhooks/webhook-ids.ts';
import { WEBHOOK_EVENT_TYPES } from '../packages/server/src/webhooks/webhook-events.ts';
import type { EventQuery } from '../packages/server/src/webhooks/event-log.ts';
import { createPostgresDatabase } from '../packages/server/test/support/databases.ts';
import { describeRatios, load, numberArg, paired } from './support/paired.ts';

const EVENTS = numberArg('events', 100_000);
const ROUNDS = numberArg('rounds', 5);
/** Walks per measurement: one walk is a few milliseconds, too short to measure on a shared machine. */
const PASSES = numberArg('passes', 20);
const PAGED = 1000;
const PAGE = 100;
const BODY = JSON.stringify({ data: { id: 'task', family: 'B', object: { status: 'SUCCESS', progress: 100 } } });

/** Adds `count` events to a new account, one a second up to now, the four task types in turn. */
async function fill(stores: SqlStores, database: SqlDatabase, account: string, count: number) {
  const now = Date.now();
  const accountId = (await stores.accounts.ensureAccount(account, null, now)).id;
  for (let done = 0; done < count; done += 1000) {
    const rows = [];
    for (let i = done; i < Math.min(count, done + 1000); i++) {
      const at = now - (count - i) * 1000;
      rows.push({
        id: eventId(at),
        account_id: accountId,
        type: WEBHOOK_EVENT_TYPES[i % 4],
        task_id: null,
        created_at: at,
        body: BODY,
      });
    }
    await database.db.insertInto('events').values(rows).execute();
  }
  return { accountId, now };
}

/** Events read per second while paging `total` of them from the newest, `PAGE` at a time. */
function pager(stores: SqlStores, accountId: string, filter: Omit<EventQuery, 'limit' | 'after'>, total: number) {
  return async () => {
    const began = performance.now();
    for (let pass = 0; pass < PASSES; pass++) {
      let after: string | undefined;
      let read = 0;
      while (read < total) {
        const page = await stores.eventLog.list(accountId, { ...filter, limit: PAGE + 1, after });
        const kept = page.slice(0, PAGE);
        read += kept.length;
        if (page.length <= PAGE) break;
        after = kept.at(-1)!.id;
      }
      if (read < total) throw new Error(`paged only ${read} events`);
    }
    return (PASSES * total) / ((performance.now() - began) / 1000);
  };
}

async function run(name: string, location: string) {
  const stores = await openSqlStores(location, { events: new TaskEvents(), logger: createLogger('silent') });
  // The bulk rows go in through a connection of their own, many per statement.
  const database = await openSqlDatabase(location);
  try {
    const small = await fill(stores, database, 'events-small', 1000);
    const large = await fill(stores, database, 'events-large', EVENTS);
    // As autovacuum would after a bulk load: without statistics PostgreSQL sorts all 100k rows.
    if (database.dialect.name === 'postgres') await sql`ANALYZE events`.execute(database.db);
    const cases: Array<[string, (a: typeof small) => () => Promise<number>]> = [
      ['newest 1,000', (a) => pager(stores, a.accountId, {}, PAGED)],
      ['?type= (250 of 1,000)', (a) => pager(stores, a.accountId, { type: 'video.failed' }, PAGED / 4)],
      // The window of the newest 500 s: 500 events in both accounts.
      ['?created_after= window', (a) => pager(stores, a.accountId, { since: a.now - 500_000 }, 500)],
    ];
    for (const [label, make] of cases) {
      await make(small)();
      const result = await paired(ROUNDS, make(small), make(large));
      console.log(
        `${name.padEnd(10)} ${label.padEnd(24)} 1k events ${result.baseline.toFixed(0)}/s | ${EVENTS.toLocaleString('en')} events ${result.subject.toFixed(0)}/s | ${describeRatios(result)} | ${load()}`,
      );
    }
  } finally {
    await database.close();
    await stores.close();
  }
}

const dir = await mkdtemp(join(tmpdir(), 'vidgen-bench-events-'));
await run('SQLite', join(dir, 'vidgen.db'));
await rm(dir, { recursive: true, force: true });
const pg = await createPostgresDatabase();
if (typeof pg === 'string') console.log(`PostgreSQL: skipped (${pg})`);
else {
  await run('PostgreSQL', pg.location);
  await pg.drop();
}
