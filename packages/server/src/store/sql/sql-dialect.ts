import type { Compilable, Kysely, SelectQueryBuilder } from 'kysely';
import type { Logger } from 'pino';
import type { TaskEvents } from '../../domain/task-events.ts';
import type { Database } from './schema.ts';

/**
 * What differs between the databases the shared Kysely code runs on (SQLite, PostgreSQL).
 * The store asks this instead of comparing dialect names, so a difference lives in one
 * place per database and a new one is a new implementation, not a new branch everywhere.
 */
export interface SqlDialect {
  /** For logs and benchmarks; behaviour goes through the members below. */
  readonly name: 'sqlite' | 'postgres';
  /**
   * Row locking for the subquery that picks rows to take (a claim, an expiry sweep), so
   * concurrent takers skip each other's rows instead of queueing on them. The outer status
   * check of every taking statement keeps a lost race harmless where there is no locking.
   */
  lockForTaking<DB, TB extends keyof DB, O>(candidates: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>;
  /**
   * A transaction that reads and then writes (a claim): on SQLite it takes the write lock at the
   * start, since a read transaction that later writes fails at once (SQLITE_BUSY) when another
   * process wrote meanwhile, instead of waiting its turn.
   */
  /**
   * Whether a statement can carry more writes over the rows it changed in its WITH clause
   * (PostgreSQL's data-modifying CTEs): a task's change and its attempt row are then one round trip
   * instead of two. SQLite runs them as two statements, which cost it no round trip.
   */
  readonly writesInWith: boolean;
  /**
   * Each statement is a round trip to a server (PostgreSQL), not a call into this process
   * (SQLite): a transaction's BEGIN and COMMIT are worth avoiding where one statement suffices.
   */
  readonly statementsAreRoundTrips: boolean;
  writeTransaction<T>(db: Kysely<Database>, run: (trx: Kysely<Database>) => Promise<T>): Promise<T>;
  /**
   * A one-row read compiled once and run with new parameters: the fastest path this database
   * offers, for reads every poll makes.
   */
  readOne<Row, P extends unknown[]>(query: Compilable, arity: P['length']): (...params: P) => Promise<Row | undefined>;
  /**
   * Carries wake-up hints (task queued, canceled, changed) between processes sharing the
   * database; a no-op where the database has no channel for them (other processes then
   * learn by polling the tasks table, which stays the truth).
   */
  bridgeWakeups(events: TaskEvents, logger: Logger): Promise<WakeupBridge>;
}

export interface WakeupBridge {
  /** Hints reach the other processes; false: they learn of this one's changes only by reading. */
  readonly crossesProcesses: boolean;
  close(): Promise<void>;
}

/** A database opened for one dialect, schema not yet migrated. */
export interface OpenedDialect {
  db: Kysely<Database>;
  dialect: SqlDialect;
  /** Resolves once every connection has really ended, so the database can be dropped or moved. */
  close(): Promise<void>;
}
