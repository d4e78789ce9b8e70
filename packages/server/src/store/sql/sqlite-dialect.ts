import { closeSync, openSync } from 'node:fs';
import { Kysely, SqliteDialect, sql, type Compilable, type Dialect } from 'kysely';
import SqliteDatabase from 'better-sqlite3';
import type { Database } from './schema.ts';
import type { OpenedDialect, SqlDialect } from './sql-dialect.ts';
import { reusableSql } from './reusable-query.ts';

/**
 * SQLite through better-sqlite3, the embedded default: one file, writers serialised by its lock.
 * `wrap` decorates Kysely's dialect (traced-dialect.ts, when tracing is on).
 */
export function openSqlite(path: string, wrap: (dialect: Dialect) => Dialect = (dialect) => dialect): OpenedDialect {
  const handle = openSqliteFile(path);
  const db = new Kysely<Database>({
    dialect: wrap(new OriginalErrorSqliteDialect(handle, { database: withStatementCache(handle) })),
  });
  return { db, dialect: sqliteDialect(handle), close: () => db.destroy() };
}

/**
 * SQLite rolls a transaction back by itself on some errors (SQLITE_FULL, SQLITE_IOERR); Kysely's
 * own ROLLBACK then fails with "no transaction is active" and that error replaced the real one,
 * so a full disk looked like a bug (500) instead of a storage fault (503). Roll back only what is
 * still open.
 */
class OriginalErrorSqliteDialect extends SqliteDialect {
  constructor(
    private readonly handle: SqliteDatabase.Database,
    config: ConstructorParameters<typeof SqliteDialect>[0],
  ) {
    super(config);
  }

  override createDriver() {
    const driver = super.createDriver();
    const rollback = driver.rollbackTransaction.bind(driver);
    driver.rollbackTransaction = async (connection) => {
      if (this.handle.inTransaction) await rollback(connection);
    };
    return driver;
  }
}

function sqliteDialect(handle: SqliteDatabase.Database): SqlDialect {
  return {
    name: 'sqlite',
    // SQLite has no row locks to skip: a write locks the whole database, so takers run one
    // after another anyway.
    lockForTaking: (candidates) => candidates,
    writesInWith: false,
    statementsAreRoundTrips: false,
    writeTransaction: (db, run) =>
      db.connection().execute(async (conn) => {
        await sql`BEGIN IMMEDIATE`.execute(conn);
        try {
          const result = await run(conn);
          await sql`COMMIT`.execute(conn);
          return result;
        } catch (err) {
          await sql`ROLLBACK`.execute(conn).catch(() => undefined);
          throw err;
        }
      }),
    readOne<Row, P extends unknown[]>(query: Compilable, arity: P['length']) {
      // A prepared statement called directly took half the time of the same query through
      // Kysely's single-connection mutex and promise chain (bench/poll.bench.ts); the SQL
      // text is still Kysely's.
      const statement = handle.prepare(reusableSql(query, arity));
      return async (...params: P) => statement.get(...params) as Row | undefined;
    },
    // SQLite has no channel between processes; TaskEvents wakes this process's own workers,
    // and any other process on the file (the keys CLI, a second worker) polls the tasks table.
    bridgeWakeups: async () => ({ crossesProcesses: false, close: async () => undefined }),
  };
}

function openSqliteFile(path: string): SqliteDatabase.Database {
  createPrivately(path);
  const database = new SqliteDatabase(path);
  // WAL lets pollers read while a worker writes; NORMAL sync survives a process crash (kill -9),
  // and busy_timeout makes a second process wait for the write lock instead of failing.
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('busy_timeout = 5000');
  database.pragma('foreign_keys = ON');
  return database;
}

/**
 * The database holds key hashes, prompts and encrypted webhook secrets: a new one is created
 * owner-only (0600), as the signing key is. SQLite gives its -wal and -shm files the database
 * file's mode. An existing file keeps the mode its operator gave it.
 */
function createPrivately(path: string): void {
  if (path === ':memory:' || path === '' || path.startsWith('file:')) return;
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

/**
 * Kysely prepares every statement anew; preparing cost as much as running a poll's query
 * (bench/poll.bench.ts), so statements are kept per SQL text. The set of texts is small and
 * fixed (the queries are built from code, values are bound parameters).
 */
function withStatementCache(database: SqliteDatabase.Database) {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => database.close(),
    prepare(text: string) {
      let statement = cache.get(text);
      if (!statement) {
        statement = database.prepare(text);
        // Oldest out first: a query built with a changing literal must not crowd out the rest.
        if (cache.size >= 500) cache.delete(cache.keys().next().value!);
        cache.set(text, statement);
      }
      return statement;
    },
  };
}
