import { sql, type Dialect, type Kysely } from 'kysely';
import type { Database } from './schema.ts';
import type { SqlDialect } from './sql-dialect.ts';
import { migrateToLatest } from './migrations.ts';
import { isStorageFault } from '../../domain/storage-faults.ts';
import { openSqlite } from './sqlite-dialect.ts';
import { noTracing, type Tracing } from '../../observability/tracing/tracing.ts';
import { tracedDialect, type DatabaseIdentity } from './traced-dialect.ts';

export interface SqlDatabase {
  db: Kysely<Database>;
  /** What differs between SQLite and PostgreSQL; the shared code asks it, never the name. */
  dialect: SqlDialect;
  /** One round trip, for readiness checks. */
  ping(): Promise<void>;
  /** The migrations this open applied: none when the schema was already up to date. */
  migrated: readonly string[];
  close(): Promise<void>;
}

/**
 * Opens the task database and brings its schema up to date. A `postgres://` URL selects
 * PostgreSQL; anything else is the path of an SQLite file (or ":memory:"). With tracing on, every
 * statement run inside a trace is a span (traced-dialect.ts).
 */
export async function openSqlDatabase(location: string, tracing: Tracing = noTracing): Promise<SqlDatabase> {
  const postgres = /^postgres(ql)?:\/\//.test(location);
  const wrap = tracing.enabled
    ? (dialect: Dialect) => tracedDialect(dialect, tracing, identityOf(location, postgres))
    : undefined;
  // pg is loaded only for PostgreSQL: an SQLite process never needs it (bench/idle-rss.bench.ts).
  const { db, dialect, close } = postgres
    ? (await import('./postgres-dialect.ts')).openPostgres(location, wrap)
    : openSqlite(location, wrap);
  let migrated: string[];
  try {
    migrated = await migrateWhenReachable(db, Date.now() + MIGRATION_WAIT_MS);
  } catch (err) {
    await close();
    throw err;
  }
  const ping = async () => void (await sql`select 1`.execute(db));
  return { db, dialect, ping, migrated, close };
}

/** How long a starting process waits for an unreachable database (a restart, a failover) before giving up. */
const MIGRATION_WAIT_MS = 60_000;

/**
 * Migrations run at start, often right when the database itself restarts: a lost or refused
 * connection is retried (each migration is its own transaction, and the migrator resumes
 * after the last one applied); a migration that fails for any other reason stops the start.
 */
async function migrateWhenReachable(db: Kysely<Database>, until: number): Promise<string[]> {
  for (let delayMs = 250; ; delayMs = Math.min(delayMs * 2, 5000)) {
    try {
      return await migrateToLatest(db);
    } catch (err) {
      if (!isStorageFault(err) || Date.now() + delayMs > until) throw err;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}

/** What spans say of the database: its system, name and server, never the URL's user or password. */
function identityOf(location: string, postgres: boolean): DatabaseIdentity {
  if (!postgres) return { system: 'sqlite', namespace: location };
  const url = new URL(location);
  return {
    system: 'postgresql',
    namespace: decodeURIComponent(url.pathname.slice(1)) || undefined,
    address: url.hostname || undefined,
    port: url.port ? Number(url.port) : 5432,
  };
}
