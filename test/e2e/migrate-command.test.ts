import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { runServerCommand } from './support/process.ts';
import { createPostgresDatabase, type TestDatabase } from '../../packages/server/test/support/databases.ts';
import { LATEST_MIGRATION } from '../../packages/server/src/store/sql/migrations.ts';

// `vidgen-server migrate` is what a deployment's migrations Job runs before the roll-out (docs/deploy.md):
// it must migrate, say so, exit, and be a no-op the second time.
describe('vidgen-server migrate (real processes)', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vidgen-migrate-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('brings a new SQLite database to the latest schema, then finds nothing to do', async () => {
    const env = { VIDGEN_DATA_DIR: join(dir, 'data') };
    const first = await runServerCommand(['migrate'], env);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /applied \d+: 0001_initial, /);
    assert.match(first.stdout, new RegExp(`schema at ${LATEST_MIGRATION}\\n$`));
    assert.deepEqual(await readdir(join(dir, 'data')), ['vidgen.db']);
    const again = await runServerCommand(['migrate'], env);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /already up to date; schema at /);
  });

  it('refuses arguments and answers --help without opening a database', async () => {
    const env = { VIDGEN_DATA_DIR: join(dir, 'untouched') };
    const refused = await runServerCommand(['migrate', '--force'], env);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /migrate takes no arguments, got '--force'/);
    const help = await runServerCommand(['help', 'migrate'], env);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /usage: vidgen-server migrate/);
    assert.ok(!(await readdir(dir)).includes('untouched'), 'no data dir was created');
  });

  describe('on PostgreSQL', () => {
    let database: TestDatabase | string;
    before(async () => {
      database = await createPostgresDatabase();
    });
    after(() => (typeof database === 'string' ? undefined : database.drop()));

    it('migrates the database of VIDGEN_DATABASE_URL and never prints its password', async (t) => {
      if (typeof database === 'string') return t.skip(database);
      const client = new pg.Client({ connectionString: database.location });
      await client.connect();
      await client.query(`CREATE ROLE vidgen_migrate_${process.pid} LOGIN PASSWORD 'hunter2-secret'`);
      await client.query(`GRANT ALL ON SCHEMA public TO vidgen_migrate_${process.pid}`);
      const url = new URL(database.location);
      url.username = `vidgen_migrate_${process.pid}`;
      url.password = 'hunter2-secret';
      try {
        const res = await runServerCommand(['migrate'], { VIDGEN_DATABASE_URL: url.toString() });
        assert.equal(res.code, 0, res.stderr);
        assert.match(res.stdout, /applied \d+: 0001_initial, /);
        assert.doesNotMatch(res.stdout + res.stderr, /hunter2/);
        const { rows } = await client.query('SELECT max(name) AS latest FROM kysely_migration');
        assert.equal(rows[0].latest, LATEST_MIGRATION);
      } finally {
        await client.query(`REASSIGN OWNED BY vidgen_migrate_${process.pid} TO CURRENT_USER`);
        await client.query(`DROP OWNED BY vidgen_migrate_${process.pid}`);
        await client.query(`DROP ROLE vidgen_migrate_${process.pid}`);
        await client.end();
      }
    });
  });
});
