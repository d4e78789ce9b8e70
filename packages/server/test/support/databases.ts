import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import pg from 'pg';

export interface TestDatabase {
  location: string;
  drop(): Promise<void>;
}

const ADMIN_URL = process.env.VIDGEN_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export async function createSqliteDatabase(): Promise<TestDatabase> {
  const dir = await mkdtemp(join(tmpdir(), 'vidgen-sqlite-'));
  return { location: join(dir, 'test.db'), drop: () => rm(dir, { recursive: true, force: true }) };
}

/** Errors that prove nothing listens there: the only ones that may skip (a laptop without PostgreSQL). */
const ABSENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EADDRNOTAVAIL', 'EHOSTUNREACH', 'ENETUNREACH']);
/** How long a server that is there but slow (a busy machine) gets to accept a connection, in all. */
const PROBE_DEADLINE_MS = 120_000;

/**
 * A fresh PostgreSQL database for one test file, or a reason why there is none (the caller
 * skips with that message: PostgreSQL may be absent on a laptop). Only a refused connection is
 * "absent": a server that is up but slow to answer is retried, with a longer connect time-out each
 * time, until PROBE_DEADLINE_MS, and then fails; a time-out is never a skip. Under CI=true a
 * missing server throws too: CI runs PostgreSQL, so a missing one is a failure.
 */
export async function createPostgresDatabase(): Promise<TestDatabase | string> {
  let admin: pg.Client;
  try {
    admin = await connectAdmin();
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    const reason = `PostgreSQL is not reachable at ${ADMIN_URL} (${(err as Error).message}); set VIDGEN_TEST_POSTGRES_URL to run these tests`;
    if (!ABSENT.has(code)) throw new Error(`${reason} (it is there but did not accept a connection in time)`);
    if (process.env.CI === 'true') throw new Error(`${reason} (CI=true: a missing service is a failure)`);
    return reason;
  }
  const name = `vidgen_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    location: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export type DatabaseKind = 'SQLite' | 'PostgreSQL';

/**
 * The one way a test runs on every database: `suite` is declared once per kind, inside
 * `describe(`${title} (${kind})`)`, with a fresh database that is dropped after the suite's own
 * `after` hooks. Where PostgreSQL is missing (a laptop) the suite is one skipped test that says
 * why; under CI=true a missing PostgreSQL is a failure instead (createPostgresDatabase throws).
 */
export function forEachDatabase(
  title: string,
  suite: (database: TestDatabase, kind: DatabaseKind) => void,
  kinds: readonly DatabaseKind[] = ['SQLite', 'PostgreSQL'],
): void {
  for (const kind of kinds) {
    describe(`${title} (${kind})`, async () => {
      const created = kind === 'SQLite' ? await createSqliteDatabase() : await createPostgresDatabase();
      if (typeof created === 'string') {
        it(`needs ${kind}`, { skip: created }, () => {});
        return;
      }
      suite(created, kind);
      after(() => created.drop());
    });
  }
}

async function connectAdmin(): Promise<pg.Client> {
  const deadline = Date.now() + PROBE_DEADLINE_MS;
  for (let connectMs = 3000; ; connectMs = Math.min(connectMs * 2, 30_000)) {
    const admin = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: connectMs });
    try {
      await admin.connect();
      return admin;
    } catch (err) {
      await admin.end().catch(() => {});
      const code = (err as { code?: string }).code ?? '';
      if (ABSENT.has(code) || Date.now() >= deadline) throw err;
    }
  }
}
