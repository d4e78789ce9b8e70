import { Kysely, PostgresDialect, type Compilable, type Dialect } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.ts';
import type { OpenedDialect, SqlDialect } from './sql-dialect.ts';
import { reusableName, reusableQuery } from './reusable-query.ts';
import { bridgePostgresWakeups } from './postgres-wakeups.ts';

/**
 * PostgreSQL through a `pg` pool: any number of API and worker processes share it. `wrap` decorates
 * Kysely's dialect (traced-dialect.ts, when tracing is on).
 */
export function openPostgres(url: string, wrap: (dialect: Dialect) => Dialect = (dialect) => dialect): OpenedDialect {
  // int8 columns hold epoch milliseconds and byte counts, all well inside Number's safe range.
  const types = {
    getTypeParser: (oid: number, format?: 'text' | 'binary') =>
      oid === 20 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text'),
  };
  const pool = new pg.Pool({ connectionString: url, max: 10, types });
  // An idle pooled connection the server ends (restart, failover, pg_terminate_backend) is
  // reported as a pool 'error', which unheard crashes the process (invariant 9). The pool has
  // already dropped that connection; the next query opens a new one, and a real outage shows
  // in that query's error and in the readiness ping.
  pool.on('error', () => undefined);
  // The same for a connection checked out between two statements of a transaction: pg emits
  // 'error' on the client itself, and nobody listens there. The statement in flight (or the
  // next one) fails with the connection error instead, and the pool drops the client on release.
  pool.on('connect', (client) => client.on('error', () => undefined));
  pool.on('connect', runReusableByName);
  const allEnded = trackConnections(pool);
  const db = new Kysely<Database>({ dialect: wrap(new PostgresDialect({ pool })) });
  return { db, dialect: postgresDialect(url, db), close: async () => (await db.destroy(), await allEnded()) };
}

/**
 * Statements built once (reusable-query.ts) are run as named prepared statements: pg parses each
 * once per connection, and PostgreSQL stops planning them anew on every run. Planning was most of
 * the server's time for a claim or a completion (0.45 and 0.18 ms against 0.2 and 0.03 ms of
 * execution, EXPLAIN ANALYZE in bench/engine.bench.ts's database). Any other statement runs
 * unnamed, as before.
 *
 * PostgreSQL keeps a prepared statement's generic plan only while it does not look costlier than
 * plans made for each run's values; with a thousand batch lines queued in a lane the claim's did,
 * and every claim was planned again: 5–10 ms of planning for 0.2 ms of work (docs/batch.md, "What a
 * queued batch cost a claim"). So the named statements run with `plan_cache_mode` forced to the
 * generic plan, and the unnamed ones with PostgreSQL's own choice, as before: the connection is
 * switched only when the kind of statement with values changes (one `SET`, rare on a worker's
 * connection, whose hot statements are all named).
 */
function runReusableByName(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (
    config: pg.QueryConfig | string,
    values?: unknown[],
  ) => Promise<pg.QueryResult>;
  // A prepared statement whose result changed shape (its table was altered under it) fails with
  // 0A000 on every later run of that name on this connection: it is prepared again under another one.
  const renamed = new Map<string, string>();
  /** Whether the session forces generic plans; undefined once a rollback may have undone a SET. */
  let generic: boolean | undefined = false;
  const planning = async (forceGeneric: boolean) => {
    if (generic === forceGeneric) return;
    await query(`SET plan_cache_mode = ${forceGeneric ? 'force_generic_plan' : 'auto'}`);
    generic = forceGeneric;
  };
  const named = async (text: string, values: unknown[] | undefined, name: string) => {
    await planning(true);
    try {
      return await query({ name: renamed.get(name) ?? name, text, values });
    } catch (err) {
      if ((err as { code?: string }).code === '0A000') renamed.set(name, `${name}_${Date.now().toString(36)}`);
      throw err;
    }
  };
  const unnamed = async (text: string, values: unknown[]) => (await planning(false), query(text, values));
  (client as { query: unknown }).query = (config: unknown, values?: unknown, callback?: unknown) => {
    const text = typeof config === 'string' && callback === undefined ? config : undefined;
    const name = text === undefined ? undefined : reusableName(text);
    if (name !== undefined) return named(text as string, values as unknown[] | undefined, name);
    if (/^\s*rollback/i.test(text ?? '')) generic = undefined;
    if (text !== undefined && Array.isArray(values) && values.length > 0 && generic !== false)
      return unnamed(text, values);
    return (query as (...args: unknown[]) => unknown)(config, values, callback);
  };
}

/**
 * pg's `pool.end()` resolves once its connections are asked to end, not once they have: a
 * DROP DATABASE right after it raced them (the contract suite failed one run in three). This
 * waits for the pool's 'remove' of each one, emitted when its socket has closed.
 */
function trackConnections(pool: pg.Pool): () => Promise<void> {
  const open = new Set<unknown>();
  let onDrained: (() => void) | undefined;
  pool.on('connect', (client) => open.add(client));
  pool.on('remove', (client) => {
    open.delete(client);
    if (open.size === 0) onDrained?.();
  });
  return () => (open.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => (onDrained = resolve)));
}

function postgresDialect(url: string, db: Kysely<Database>): SqlDialect {
  return {
    name: 'postgres',
    // Concurrent claimers in many processes skip each other's rows instead of queueing on them.
    lockForTaking: (candidates) => candidates.forUpdate().skipLocked(),
    writesInWith: true,
    statementsAreRoundTrips: true,
    writeTransaction: (db, run) => db.transaction().execute(run),
    readOne<Row, P extends unknown[]>(query: Compilable, arity: P['length']) {
      const compiled = reusableQuery<P>(query, arity);
      return async (...params: P) => (await db.executeQuery<Row>(compiled(...params))).rows[0];
    },
    bridgeWakeups: (events, logger) => bridgePostgresWakeups(url, events, logger),
  };
}
