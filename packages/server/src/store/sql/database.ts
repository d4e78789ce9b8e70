import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.ts';
import type { SqlDialect } from './sql-dialect.ts';
import { migrateToLatest } from './migrations.ts';
import { openSqlite } from './sqlite-dialect.ts';
import { openPostgres } from './postgres-dialect.ts';

export interface SqlDatabase {
  db: Kysely<Database>;
  /** What differs between SQLite and PostgreSQL; the shared code asks it, never the name. */
  dialect: SqlDialect;
  /** One round trip, for readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens the task database and brings its schema up to date. A `postgres://` URL selects
 * PostgreSQL; anything else is the path of an SQLite file (or ":memory:").
 */
export async function openSqlDatabase(location: string): Promise<SqlDatabase> {
  const { db, dialect, close } = /^postgres(ql)?:\/\//.test(location) ? openPostgres(location) : openSqlite(location);
  try {
    await migrateToLatest(db);
  } catch (err) {
    await close();
    throw err;
  }
  const ping = async () => void (await sql`select 1`.execute(db));
  return { db, dialect, ping, close };
}
