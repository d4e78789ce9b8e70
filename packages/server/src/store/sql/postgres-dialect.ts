import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.ts';
import type { OpenedDialect, SqlDialect } from './sql-dialect.ts';
import { reusableQuery } from './reusable-query.ts';
import { bridgePostgresWakeups } from './postgres-wakeups.ts';

/** PostgreSQL through a `pg` pool: any number of API and worker processes share it. */
export function openPostgres(url: string): OpenedDialect {
  // int8 columns hold epoch milliseconds and byte counts, all well inside Number's safe range.
  const types = {
    getTypeParser: (oid: number, format?: 'text' | 'binary') =>
      oid === 20 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text'),
  };
  const pool = new pg.Pool({ connectionString: url, max: 10, types });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: postgresDialect(url, db) };
}

function postgresDialect(url: string, db: Kysely<Database>): SqlDialect {
  return {
    name: 'postgres',
    // Concurrent claimers in many processes skip each other's rows instead of queueing on them.
    lockForTaking: (candidates) => candidates.forUpdate().skipLocked(),
    readOne<Row, P extends unknown[]>(query: Parameters<SqlDialect['readOne']>[0], arity: P['length']) {
      const compiled = reusableQuery<P>(query, arity);
      return async (...params: P) => (await db.executeQuery<Row>(compiled(...params))).rows[0];
    },
    bridgeWakeups: (events, logger) => bridgePostgresWakeups(url, events, logger),
  };
}
