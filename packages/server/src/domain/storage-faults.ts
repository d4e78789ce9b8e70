/**
 * Faults of the service's own storage (database, blob and work directories), told apart from
 * faults of a task or a request (invariant 9). They are nobody's fault and pass: a lost
 * database connection, a full or read-only disk, a directory the process may not write. The
 * API answers them 503 + Retry-After (never 500), workers do not count them against a task
 * nor treat them as a lost worker, and readiness reports them until they are gone.
 */

/** Seconds a client should wait before retrying a request refused by a storage fault. */
export const STORAGE_RETRY_AFTER_SECONDS = 2;

/** SQLSTATE classes and codes that say the database cannot serve now, not that the statement was wrong. */
const SQLSTATE = [
  /^08/, // connection exception
  /^57P0[1-4]$/, // admin shutdown (pg_terminate_backend), crash shutdown, cannot connect now, database dropped
  /^53/, // insufficient resources: disk full, out of memory, too many connections
  /^58/, // system error: I/O error
  /^25006$/, // read-only transaction (a standby after failover)
  /^40001$/, // serialization failure
  /^40P01$/, // deadlock
];

/** SQLite's result codes for the same situations (better-sqlite3 puts them in `code`). */
const SQLITE = /^SQLITE_(FULL|READONLY|IOERR|CANTOPEN|BUSY|LOCKED|PROTOCOL|NOMEM)/;

/** File system and socket errors of the process's own storage. */
const SYSTEM = new Set([
  'ENOSPC',
  'EDQUOT',
  'EROFS',
  'EACCES',
  'EPERM',
  'EIO',
  'EMFILE',
  'ENFILE',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * pg's own messages for a connection that went away (they carry no code), and the server's refusal of new ones (55000
 * is otherwise a statement error).
 */
const PG_CONNECTION = new RegExp(
  [
    'Connection terminated',
    'connection error',
    'is not currently accepting connections',
    'Client was closed',
    'Client has encountered a connection error',
    'timeout exceeded when trying to connect',
    'Cannot use a pool after calling end',
  ].join('|'),
  'i',
);

export function isStorageFault(err: unknown): boolean {
  for (
    let e: unknown = err, depth = 0;
    e && typeof e === 'object' && depth < 5;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (
      typeof code === 'string' &&
      (SYSTEM.has(code) || SQLITE.test(code) || (code.length === 5 && SQLSTATE.some((re) => re.test(code))))
    )
      return true;
    if (typeof message === 'string' && PG_CONNECTION.test(message)) return true;
  }
  return false;
}
