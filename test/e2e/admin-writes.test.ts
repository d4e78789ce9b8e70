import { before, after, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { forEachDatabase } from '../../packages/server/test/support/databases.ts';
import { openSqlDatabase } from '../../packages/server/src/store/sql/database.ts';
import { api } from './support/http.ts';
import { runServerCommand, spawnServer, type ServerProcess } from './support/process.ts';

const ADMIN_TOKEN = 'admin-writes-token-0123456789';

// Invariant 4, docs/architecture.md: an account is made with its plan, first grant or first key in
// one transaction. A write the database refuses part-way (a trigger stands in for the fault) leaves
// no account behind; amounts past what a JSON number carries exactly are a 400 naming the field.
forEachDatabase('admin writes', (database, kind) => {
  let dataDir: string;
  let server: ServerProcess;
  let env: Record<string, string>;
  const admin = () => api(server.url, ADMIN_TOKEN);
  const accountNames = async () => {
    const db = await openSqlDatabase(database.location);
    try {
      return (await db.db.selectFrom('accounts').select('name').execute()).map((a) => a.name).sort();
    } finally {
      await db.close();
    }
  };
  /** Makes every insert into `table` fail, as a full disk or a lost connection would part-way. */
  const refuseInserts = async (table: string, on: boolean) => {
    const db = await openSqlDatabase(database.location);
    try {
      if (kind === 'SQLite') {
        if (on)
          await sql
            .raw(`CREATE TRIGGER refuse_${table} BEFORE INSERT ON ${table} BEGIN SELECT RAISE(ABORT, 'injected'); END`)
            .execute(db.db);
        else await sql.raw(`DROP TRIGGER refuse_${table}`).execute(db.db);
        return;
      }
      if (on) {
        await sql
          .raw(
            `CREATE FUNCTION refuse_${table}() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'injected'; END $$ ` +
              'LANGUAGE plpgsql',
          )
          .execute(db.db);
        await sql
          .raw(
            `CREATE TRIGGER refuse_${table} BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION refuse_${table}()`,
          )
          .execute(db.db);
      } else await sql.raw(`DROP FUNCTION refuse_${table}() CASCADE`).execute(db.db);
    } finally {
      await db.close();
    }
  };

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'vidgen-admin-writes-'));
    env = {
      VIDGEN_DATA_DIR: dataDir,
      VIDGEN_DATABASE_URL: database.location,
      VIDGEN_ADMIN_TOKEN: ADMIN_TOKEN,
      VIDGEN_SIGNING_SECRET: 'admin-writes',
    };
    assert.equal((await runServerCommand(['migrate'], env)).code, 0);
    server = await spawnServer(env);
  });
  after(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('makes the account, its plan and its grant in one transaction', async () => {
    await refuseInserts('ledger_entries', true);
    try {
      const refused = await admin().post('/admin/v1/accounts', { id: 'half-made', credits_usd_ticks: 1000 });
      assert.ok(refused.status >= 500, `the grant failed: ${refused.status}`);
    } finally {
      await refuseInserts('ledger_entries', false);
    }
    assert.ok(!(await accountNames()).includes('half-made'), 'no account without its grant');
    const made = await admin().post('/admin/v1/accounts', { id: 'half-made', credits_usd_ticks: 1000 });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    assert.equal(made.body.balance_usd_ticks, 1000);
  });

  it('`keys create --account` makes a new account and its key in one transaction', async () => {
    await refuseInserts('api_keys', true);
    let failed;
    try {
      failed = await runServerCommand(['keys', 'create', '--account', 'keyless'], env);
    } finally {
      await refuseInserts('api_keys', false);
    }
    assert.notEqual(failed.code, 0, 'the key could not be stored');
    assert.ok(!(await accountNames()).includes('keyless'), 'no account without its key');
    assert.equal((await runServerCommand(['keys', 'create', '--account', 'keyless'], env)).code, 0);
    assert.ok((await accountNames()).includes('keyless'));
  });

  it('refuses amounts and limits past their columns, naming the field, on create and on PATCH', async () => {
    const cases: Array<[string, string]> = [
      ['"credits_usd_ticks":1e308', 'credits_usd_ticks'],
      ['"credits_usd_ticks":9007199254740992', 'credits_usd_ticks'],
      ['"credits_usd_ticks":18446744073709551616', 'credits_usd_ticks'],
      ['"limits":{"requests_per_minute":2147483648}', 'limits.requests_per_minute'],
      ['"limits":{"max_active_tasks":9007199254740991}', 'limits.max_active_tasks'],
      ['"limits":{"max_daily_usd_ticks":1e29}', 'limits.max_daily_usd_ticks'],
      ['"balance_alert_usd_ticks":9223372036854775808', 'balance_alert_usd_ticks'],
      ['"price_group":""', 'price_group'],
    ];
    for (const [fields, param] of cases) {
      const created = await admin().post('/admin/v1/accounts', `{"id":"ranged",${fields}}`);
      assert.equal(created.status, 400, fields);
      assert.equal(created.body.error.param, param, fields);
      if (param === 'credits_usd_ticks') continue;
      const patched = await admin().call('PATCH', '/admin/v1/accounts/half-made', `{${fields}}`);
      assert.equal(patched.status, 400, fields);
      assert.equal(patched.body.error.param, param, fields);
    }
    assert.ok(!(await accountNames()).includes('ranged'));
    const largest = await admin().post('/admin/v1/accounts', {
      id: 'ranged',
      credits_usd_ticks: Number.MAX_SAFE_INTEGER,
      limits: { requests_per_minute: 2147483647, max_active_tasks: 2147483647 },
    });
    assert.equal(largest.status, 200, JSON.stringify(largest.body));
    assert.equal(largest.body.balance_usd_ticks, Number.MAX_SAFE_INTEGER);
    // A grant that would take the balance past it is refused too, and the balance stays exact.
    const over = await admin().post('/admin/v1/accounts/ranged/credits', { amount_usd_ticks: 1, reason: 'one more' });
    assert.equal(over.status, 400);
    assert.equal(over.body.error.param, 'amount_usd_ticks');
    assert.equal((await admin().get('/admin/v1/accounts/ranged')).body.balance_usd_ticks, Number.MAX_SAFE_INTEGER);
  });
});
