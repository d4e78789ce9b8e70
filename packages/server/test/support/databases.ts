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

/**
 * A fresh PostgreSQL database for one test file, or a reason why there is none (the caller
 * skips with that message: PostgreSQL may be absent on a laptop). Under CI=true it throws
 * instead: CI runs PostgreSQL, so a missing one is a failure, never a silent skip.
 */
export async function createPostgresDatabase(): Promise<TestDatabase | string> {
  const admin = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch (err) {
    const reason = `PostgreSQL is not reachable at ${ADMIN_URL} (${(err as Error).message}); set VIDGEN_TEST_POSTGRES_URL to run these tests`;
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
