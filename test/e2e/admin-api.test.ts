import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { api } from './support/http.ts';
import { runServerCommand } from './support/process.ts';
import { ADMIN_TOKEN, startEconomicsService, type EconomicsService } from './support/economics.ts';
import { startTestService } from './support/service.ts';

describe('admin API and the accounts/credits/ledger commands', () => {
  let svc: EconomicsService;
  before(async () => {
    svc = await startEconomicsService();
  });
  after(async () => {
    await svc?.close();
  });

  it('needs the admin token, compared in full; a tenant key is not one', async () => {
    assert.equal((await api(svc.url).get('/admin/v1/accounts')).status, 401);
    const wrong = await api(svc.url, `${ADMIN_TOKEN}x`).get('/admin/v1/accounts');
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.error.code, 'invalid_admin_token');
    const key = await svc.account('tenant');
    assert.equal((await api(svc.url, key).get('/admin/v1/accounts')).status, 401);
    assert.equal((await svc.admin.get('/admin/v1/accounts')).status, 200);
  });

  it('is disabled without VIDGEN_ADMIN_TOKEN', async () => {
    const plain = await startTestService();
    try {
      const answer = await api(plain.url, 'anything').get('/admin/v1/accounts');
      assert.equal(answer.status, 403);
      assert.equal(answer.body.error.code, 'admin_disabled');
    } finally {
      await plain.close();
    }
  });

  it('lists accounts by id a page at a time, as every other listing pages', async () => {
    for (const id of ['page-c', 'page-a', 'page-b'])
      assert.equal((await svc.admin.post('/admin/v1/accounts', { id })).status, 200);
    const seen: string[] = [];
    let after = '';
    for (;;) {
      const page = await svc.admin.get(
        `/admin/v1/accounts?limit=2${after ? `&after=${encodeURIComponent(after)}` : ''}`,
      );
      assert.equal(page.status, 200);
      assert.ok(page.body.data.length <= 2);
      seen.push(...page.body.data.map((a: { id: string }) => a.id));
      if (!page.body.has_more) break;
      after = page.body.last_id;
    }
    assert.deepEqual(seen, [...seen].sort(), 'by id');
    assert.equal(new Set(seen).size, seen.length, 'no account twice');
    for (const id of ['page-a', 'page-b', 'page-c']) assert.ok(seen.includes(id));
    const whole = await svc.admin.get('/admin/v1/accounts?limit=100');
    assert.deepEqual(
      whole.body.data.map((a: { id: string }) => a.id),
      seen,
    );
    for (const limit of ['0', '101', '1e1', 'x'])
      assert.equal((await svc.admin.get(`/admin/v1/accounts?limit=${limit}`)).body.error.code, 'invalid_limit');
  });

  it('manages accounts, keys and credits; grants are idempotent with Idempotency-Key', async () => {
    const created = await svc.admin.post('/admin/v1/accounts', {
      id: 'acme',
      models: ['tiny-1s'],
      credits_usd_ticks: 1000,
    });
    assert.equal(created.status, 200);
    assert.deepEqual(
      [created.body.metered, created.body.balance_usd_ticks, created.body.models],
      [true, 1000, ['tiny-1s']],
    );
    assert.equal((await svc.admin.post('/admin/v1/accounts', { id: 'acme' })).body.error.code, 'account_exists');
    const patched = await svc.admin.call('PATCH', '/admin/v1/accounts/acme', {
      limits: { requests_per_minute: 30, max_active_tasks: 4 },
      models: null,
    });
    assert.deepEqual(patched.body.limits, {
      requests_per_minute: 30,
      max_active_tasks: 4,
      max_task_usd_ticks: null,
      max_daily_usd_ticks: null,
    });
    assert.equal(patched.body.models, null);
    // A model the catalog lacks would grant nothing: refused, naming it, and nothing changes.
    const unknown = await svc.admin.call('PATCH', '/admin/v1/accounts/acme', { models: ['tiny-1s', 'nope'] });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error.param, 'models');
    assert.match(unknown.body.error.message, /'nope', not in the catalog \(.*tiny-1s/);
    assert.equal((await svc.admin.get('/admin/v1/accounts/acme')).body.models, null);
    assert.equal((await svc.admin.post('/admin/v1/accounts', { id: 'ghost', models: ['nope'] })).status, 400);
    assert.equal((await svc.admin.get('/admin/v1/accounts/ghost')).status, 404);

    const key = await svc.admin.post('/admin/v1/accounts/acme/keys');
    assert.match(key.body.key, /^vg-/);
    const mine = await api(svc.url, key.body.key).get('/v1/account');
    assert.deepEqual([mine.body.id, mine.body.balance_usd_ticks, mine.body.limits.max_active_tasks], ['acme', 1000, 4]);
    const keys = await svc.admin.get('/admin/v1/accounts/acme/keys');
    assert.equal(keys.body.data.length, 1);
    assert.equal(JSON.stringify(keys.body).includes(key.body.key), false, 'a listing never shows the secret');

    const grant = (amount: number, idem: string) =>
      svc.admin.post(
        '/admin/v1/accounts/acme/credits',
        { amount_usd_ticks: amount, reason: 'top-up' },
        { 'idempotency-key': idem },
      );
    assert.equal((await grant(500, 'g1')).body.account.balance_usd_ticks, 1500);
    const replay = await grant(500, 'g1');
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(replay.body.account.balance_usd_ticks, 1500);
    assert.equal((await grant(700, 'g1')).status, 422);
    assert.equal((await grant(-2000, 'd1')).status, 402);
    assert.equal((await grant(-200, 'd2')).body.entry.kind, 'adjust');
    const ledger = await svc.admin.get('/admin/v1/ledger?account=acme');
    assert.deepEqual(
      ledger.body.data.map((e: any) => [e.kind, e.amount_usd_ticks]),
      [
        ['grant', 1000],
        ['grant', 500],
        ['adjust', -200],
      ],
    );

    assert.equal((await svc.admin.delete(`/admin/v1/accounts/acme/keys/${key.body.id}`)).status, 200);
    assert.equal((await svc.admin.delete('/admin/v1/accounts/acme/keys/key-nope')).status, 404);
  });

  it('reports usage by account, model and day as JSON and CSV', async () => {
    const key = await svc.account('reporter', { credits_usd_ticks: 10_000_000_000 });
    const client = api(svc.url, key);
    const submit = await client.post('/v1/video/generations', { model: 'tiny-1s', prompt: 'report me' });
    for (;;) {
      const poll = await client.get(`/v1/video/generations/${submit.body.task_id}`);
      if (poll.body.status === 'SUCCESS') break;
      assert.notEqual(poll.body.status, 'FAILURE');
      await new Promise((r) => setTimeout(r, 100));
    }
    const today = new Date().toISOString().slice(0, 10);
    const json = await svc.admin.get('/admin/v1/usage?account=reporter');
    assert.deepEqual(
      json.body.data.map((r: any) => [r.account, r.model, r.day, r.tasks, r.cost_in_usd_ticks]),
      [['reporter', 'tiny-1s', today, 1, 1_000_000_000]],
    );
    const csv = await fetch(`${svc.url}/admin/v1/usage?format=csv&account=reporter`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
    const [keyId] = json.body.data.map((r: any) => r.key_id);
    assert.match(keyId, /^key-/);
    assert.equal(
      await csv.text(),
      'account,key_id,model,day,tasks,seconds,cost_in_usd_ticks,refunded_usd_ticks,upstream_cost_in_usd_ticks,margin_usd_ticks\n' +
        `reporter,${keyId},tiny-1s,${today},1,1,1000000000,0,0,1000000000\n`,
    );
    const models = await client.get('/v1/models');
    assert.deepEqual(models.body.data.find((m: any) => m.id === 'tiny-1s').pricing, {
      usd_ticks_per_second: 1_000_000_000,
    });
  });

  it('vidgen-server accounts, credits and ledger verify work on the same database', async () => {
    const env = { VIDGEN_DATA_DIR: svc.dataDir };
    const created = await runServerCommand(['accounts', 'create', 'cli-team', '--credits', '2500', '--rpm', '10'], env);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(JSON.parse(created.stdout).balanceUsdTicks, 2500);
    const granted = await runServerCommand(
      ['credits', 'grant', 'cli-team', '500', '--reason', 'bonus', '--idempotency-key', 'b1'],
      env,
    );
    assert.equal(JSON.parse(granted.stdout).account.balanceUsdTicks, 3000);
    const deducted = await runServerCommand(['credits', 'deduct', 'cli-team', '1000'], env);
    assert.equal(JSON.parse(deducted.stdout).account.balanceUsdTicks, 2000);
    const verify = await runServerCommand(['ledger', 'verify'], env);
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    assert.match(verify.stderr, /the ledger verifies/);
    assert.equal((await svc.admin.get('/admin/v1/accounts/cli-team')).body.balance_usd_ticks, 2000);
  });

  it('vidgen-server accounts list prints every account, more than a page of them', async () => {
    for (let i = 0; i < 101; i++)
      assert.equal(
        (await svc.admin.post('/admin/v1/accounts', { id: `bulk-${String(i).padStart(3, '0')}` })).status,
        200,
      );
    const listed = await runServerCommand(['accounts', 'list', '--json'], { VIDGEN_DATA_DIR: svc.dataDir });
    assert.equal(listed.code, 0, listed.stderr);
    const ids = listed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).id);
    assert.equal(new Set(ids).size, ids.length, 'no account twice');
    for (let i = 0; i < 101; i++) assert.ok(ids.includes(`bulk-${String(i).padStart(3, '0')}`));
    assert.deepEqual(ids, [...ids].sort());
    // For a person: a table under one header, every account once, times in whole seconds, amounts in dollars.
    const table = await runServerCommand(['accounts', 'list'], { VIDGEN_DATA_DIR: svc.dataDir });
    assert.equal(table.code, 0, table.stderr);
    const [header, ...rows] = table.stdout.trimEnd().split('\n');
    assert.match(header, /^ID +BALANCE +HELD +METERED +RPM +MAX ACTIVE +CREATED +MODELS$/);
    assert.deepEqual(
      rows.map((r) => r.split(/ {2,}/)[0]),
      ids,
      'one row per account, in the same order',
    );
    for (const r of rows) {
      assert.doesNotMatch(r, /[{}"]|[a-z][A-Z]/, `no JSON and no camelCase: ${r}`);
      assert.match(r, / \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z /, `a time in whole seconds: ${r}`);
      assert.ok(!/\d{13}/.test(r), `no millisecond epoch: ${r}`);
      assert.ok(!r.endsWith(' '), 'no trailing spaces');
    }
    const cliTeam = rows.find((r) => r.startsWith('cli-team '));
    assert.match(cliTeam ?? '', /^cli-team +\$0\.0000002 +\$0\.00 +yes +10 +none +\S+Z +every model$/);
    const shown = await runServerCommand(['accounts', 'show', 'cli-team'], { VIDGEN_DATA_DIR: svc.dataDir });
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /^id: +cli-team$/m);
    assert.match(shown.stdout, /^balance: +\$0\.0000002 \(2000 ticks\)$/m);
    assert.match(shown.stdout, /^requests per minute: +10$/m);
    assert.match(shown.stdout, /^created: +\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/m);
    assert.doesNotMatch(shown.stdout, /[{}]|balanceUsdTicks|\d{13}/);
    const shownJson = await runServerCommand(['accounts', 'show', '--json', 'cli-team'], {
      VIDGEN_DATA_DIR: svc.dataDir,
    });
    assert.equal(shownJson.code, 0, shownJson.stderr);
    assert.equal(JSON.parse(shownJson.stdout).balanceUsdTicks, 2000);
  });
});
