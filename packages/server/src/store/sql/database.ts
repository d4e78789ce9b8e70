import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import type { Database } from './schema.ts';
import { migrateToLatest } from './migrations.ts';

export type SqlDialectName = 'sqlite' | 'postgres';

export interface SqlDatabase {
  db: Kysely<Database>;
  dialect: SqlDialectName;
  /** The SQLite handle itself, for the few reads that skip Kysely (see SqlTaskStore.get). */
  sqlite?: SqliteDatabase.Database;
  /** One round trip, for readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens the task database and brings its schema up to date. A `postgres://` URL selects
 * PostgreSQL; anything else is the path of an SQLite file (or ":memory:").
 */
export async function openSqlDatabase(location: string): Promise<SqlDatabase> {
  const isPostgres = /^postgres(ql)?:\/\//.test(location);
  const sqlite = isPostgres ? undefined : openSqliteFile(location);
  const db = sqlite ? sqliteKysely(sqlite) : openPostgres(location);
  await migrateToLatest(db);
  const ping = async () => void (await sql`select 1`.execute(db));
  return { db, dialect: isPostgres ? 'postgres' : 'sqlite', sqlite, ping, close: () => db.destroy() };
}

function openSqliteFile(path: string): SqliteDatabase.Database {
  const database = new SqliteDatabase(path);
  // WAL lets pollers read while a worker writes; NORMAL sync survives a process crash (kill -9),
  // and busy_timeout makes a second process wait for the write lock instead of failing.
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('busy_timeout = 5000');
  database.pragma('foreign_keys = ON');
  return database;
}

function sqliteKysely(database: SqliteDatabase.Database): Kysely<Database> {
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(database) }) });
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

function openPostgres(url: string): Kysely<Database> {
  // int8 columns hold epoch milliseconds and byte counts, all well inside Number's safe range.
  const types = {
    getTypeParser: (oid: number, format?: 'text' | 'binary') =>
      oid === 20 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text'),
  };
  const pool = new pg.Pool({ connectionString: url, max: 10, types });
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}
