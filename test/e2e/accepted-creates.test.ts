import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createPostgresDatabase,
  createSqliteDatabase,
  type TestDatabase,
} from '../../packages/server/test/support/databases.ts';
import { api } from './support/http.ts';
import { runServerCommand, spawnServer, type ServerProcess } from './support/process.ts';
import { PRICED_MODELS, startEconomicsService, TICKS_PER_SECOND, type EconomicsService } from './support/economics.ts';

// An hour-long window: a burst of submits never straddles two windows while the test runs.
const WINDOW = { VIDGEN_RATE_WINDOW_SECONDS: '3600' };

// `requests_per_minute` counts accepted creates only, in the insert's transaction, across processes.
for (const [name, create] of [
  ['SQLite', createSqliteDatabase],
  ['PostgreSQL', createPostgresDatabase],
] as const) {
  const created = await create();
  describe(`the per-key create limit counts accepted creates only (${name})`, {
    skip: typeof created === 'string' ? created : false,
  }, () => {
    let db: TestDatabase;
    let svc: EconomicsService;
    before(async () => {
      db = created as TestDatabase;
      svc = await startEconomicsService(name === 'PostgreSQL' ? db.location : undefined, WINDOW);
    });
    after(async () => {
      await svc?.close();
      await db?.drop();
    });

    it('two 402s and a 400 do not use up a limit of 1: after a top-up the next submit is accepted', async () => {
      const key = await svc.account('topped-up', { credits_usd_ticks: 0, limits: { requests_per_minute: 1 } });
      const client = api(svc.url, key);
      for (let i = 0; i < 2; i++) {
        const refused = await client.post('/v1/video/generations', { model: 'tiny-1s', prompt: `broke ${i}` });
        assert.equal(refused.status, 402, JSON.stringify(refused.body));
      }
      const typo = await client.post('/v1/video/generations', { model: 'tiny-1s', prompt: 'p', ratio: '16:10' });
      assert.equal(typo.status, 400);
      const topUp = await svc.admin.post('/admin/v1/accounts/topped-up/credits', {
        amount_usd_ticks: 2 * TICKS_PER_SECOND,
        reason: 'top-up',
      });
      assert.equal(topUp.status, 200, JSON.stringify(topUp.body));
      const accepted = await client.post('/v1/video/generations', { model: 'tiny-1s', prompt: 'paid' });
      assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
      // Now the one create of the window is taken, by an accepted task.
      const limited = await client.post('/v1/video/generations', { model: 'tiny-1s', prompt: 'again' });
      assert.equal(limited.status, 429);
      assert.equal(limited.body.error.code, 'rate_limit_exceeded');
      assert.deepEqual((await svc.verify()).problems, []);
    });
  });

  describe(`a limit of N accepts exactly N across two API processes (${name})`, {
    skip: typeof created === 'string' ? created : false,
  }, () => {
    const processes: ServerProcess[] = [];
    let dir: string;
    let database: TestDatabase | string;
    before(async () => {
      database = await create();
    });
    after(async () => {
      for (const p of processes) await p.stop('SIGKILL');
      if (typeof database !== 'string') await database.drop();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('40 concurrent submits, half to each process, with a limit of 7: 7 accepted, 33 refused with 429', async () => {
      dir = await mkdtemp(join(tmpdir(), 'vidgen-rpm-'));
      await writeFile(join(dir, 'models.json'), JSON.stringify(PRICED_MODELS));
      const env = {
        VIDGEN_DATA_DIR: dir,
        VIDGEN_MODELS_FILE: join(dir, 'models.json'),
        VIDGEN_SIGNING_SECRET: 'rpm',
        ...WINDOW,
        ...(name === 'PostgreSQL' ? { VIDGEN_DATABASE_URL: (database as TestDatabase).location } : {}),
      };
      const made = await runServerCommand(['accounts', 'create', 'burst', '--rpm', '7'], env);
      assert.equal(made.code, 0, made.stderr);
      const key = (await runServerCommand(['keys', 'create', '--account', 'burst'], env)).stdout.trim();
      processes.push(await spawnServer(env, ['--role', 'api']), await spawnServer(env, ['--role', 'api']));
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          api(processes[i % 2].url, key).post('/v1/video/generations', { model: 'tiny-1s', prompt: `burst ${i}` }),
        ),
      );
      const codes = answers.map((a) => a.status);
      assert.equal(codes.filter((c) => c === 200).length, 7, JSON.stringify(codes));
      assert.equal(codes.filter((c) => c === 429).length, 33, JSON.stringify(codes));
      const listed = await api(processes[0].url, key).get('/v1/video/generations?limit=100');
      assert.equal(listed.body.data.length, 7, 'one task per accepted create');
    });
  });
}
