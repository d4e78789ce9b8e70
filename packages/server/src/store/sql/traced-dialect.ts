import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult, TransactionSettings } from 'kysely';
import { errorTypeOf, type SpanAttributes, type Tracing } from '../../observability/tracing/tracing.ts';

/** Which database the statements go to, as the semantic conventions name it (never a user or password). */
export interface DatabaseIdentity {
  system: 'sqlite' | 'postgresql';
  /** The database's name (PostgreSQL) or file (SQLite). */
  namespace?: string;
  address?: string;
  port?: number;
}

/**
 * The dialect with a client span around every statement run inside a trace (docs/observability.md):
 * named `<operation> <table>`, with the statement's parameterized text (values are bound parameters,
 * never in the text). Statements outside a trace (an idle worker's claims, the sweepers) make none.
 * Applied only when tracing is on: off, the driver is Kysely's own, untouched.
 */
export function tracedDialect(dialect: Dialect, tracing: Tracing, identity: DatabaseIdentity): Dialect {
  const base: SpanAttributes = {
    'db.system.name': identity.system,
    // The name before the conventions' 1.26 rename, which most backends still key their views on.
    'db.system': identity.system,
    'db.namespace': identity.namespace,
    'server.address': identity.address,
    'server.port': identity.port,
  };
  return {
    createDriver: () => new TracedDriver(dialect.createDriver(), tracing, base),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}

class TracedDriver implements Driver {
  private readonly wrapped = new WeakMap<DatabaseConnection, DatabaseConnection>();
  private readonly inner = new WeakMap<DatabaseConnection, DatabaseConnection>();

  constructor(
    private readonly driver: Driver,
    private readonly tracing: Tracing,
    private readonly base: SpanAttributes,
  ) {}

  init(): Promise<void> {
    return this.driver.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.driver.acquireConnection();
    let traced = this.wrapped.get(connection);
    if (!traced) {
      traced = this.trace(connection);
      this.wrapped.set(connection, traced);
      this.inner.set(traced, connection);
    }
    return traced;
  }

  // BEGIN, COMMIT and ROLLBACK are statements on the traced connection too: a transaction's round trips show.
  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.driver.beginTransaction(connection, settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.driver.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.driver.rollbackTransaction(connection);
  }

  savepoint(...args: Parameters<NonNullable<Driver['savepoint']>>): Promise<void> {
    return this.driver.savepoint!(...args);
  }

  rollbackToSavepoint(...args: Parameters<NonNullable<Driver['rollbackToSavepoint']>>): Promise<void> {
    return this.driver.rollbackToSavepoint!(...args);
  }

  releaseSavepoint(...args: Parameters<NonNullable<Driver['releaseSavepoint']>>): Promise<void> {
    return this.driver.releaseSavepoint!(...args);
  }

  // The driver's own connection object: PostgreSQL's release calls a method only it has.
  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.driver.releaseConnection(this.inner.get(connection) ?? connection);
  }

  destroy(): Promise<void> {
    return this.driver.destroy();
  }

  private trace(connection: DatabaseConnection): DatabaseConnection {
    const { tracing, base } = this;
    return {
      async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
        const summary = summaryOf(query.sql);
        const span = tracing.startSpan(summary.name, {
          kind: 'client',
          childOnly: true,
          attributes: {
            ...base,
            'db.operation.name': summary.operation,
            'db.collection.name': summary.table,
            'db.query.text': query.sql,
          },
        });
        try {
          const result = await connection.executeQuery<R>(query);
          span.setAttributes({ 'db.response.returned_rows': result.rows.length });
          return result;
        } catch (err) {
          span.fail(errorTypeOf(err));
          throw err;
        } finally {
          span.end();
        }
      },
      streamQuery: (query, chunkSize) => connection.streamQuery(query, chunkSize),
    };
  }
}

interface Summary {
  name: string;
  operation: string;
  table?: string;
}

/** Statements are built by code, so their texts are a small fixed set: each is summed up once. */
const summaries = new Map<string, Summary>();
const MAX_SUMMARIES = 1000;

/**
 * `INSERT tasks`, `UPDATE tasks`, `SELECT api_keys`: the operation and the table it works on. A
 * `WITH` statement is named after its first write (a claim's `UPDATE tasks`), or is a `SELECT`.
 */
export function summaryOf(text: string): Summary {
  let summary = summaries.get(text);
  if (summary) return summary;
  const sql = text.trimStart();
  const keyword = /^\w+/.exec(sql)?.[0].toUpperCase() ?? 'QUERY';
  const write = /\b(insert\s+into|update|delete\s+from)\s+"?(\w+)/i.exec(sql);
  const read = /\bfrom\s+"?(\w+)/i.exec(sql);
  let operation = keyword;
  let table: string | undefined;
  if (keyword === 'INSERT' || keyword === 'UPDATE' || keyword === 'DELETE' || (keyword === 'WITH' && write)) {
    operation = write ? write[1].split(/\s+/)[0].toUpperCase() : keyword;
    table = write?.[2];
  } else if (keyword === 'SELECT' || keyword === 'WITH') {
    operation = 'SELECT';
    table = keyword === 'SELECT' ? read?.[1] : undefined;
  }
  summary = { name: table ? `${operation} ${table}` : operation, operation, table };
  if (summaries.size >= MAX_SUMMARIES) summaries.delete(summaries.keys().next().value!);
  summaries.set(text, summary);
  return summary;
}
