import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer, runServerCommand, type ServerProcess } from './support/process.ts';
import { rawRequest, type RawAnswer } from './support/raw-http.ts';
import { hostileCases, type HostileCase } from './support/hostile-matrix.ts';
import { makeImage } from './support/images.ts';
import { makeClip } from './support/video-server.ts';
import { HOSTILE_ACCOUNT, adminWriteCases, multipartWriteCases } from './support/hostile-writes.ts';
import {
  createPostgresDatabase,
  createSqliteDatabase,
  type TestDatabase,
} from '../../packages/server/test/support/databases.ts';
import { openSqlDatabase } from '../../packages/server/src/store/sql/database.ts';

const ADMIN_TOKEN = 'hostile-admin-token-0123456789';

// A generated matrix of malformed requests over every endpoint, on both stores.
// Invariants 4 and 9: no input earns a 5xx, every error is in the envelope with a request id,
// the server stays up and nothing is written.
for (const store of ['sqlite', 'postgres'] as const) {
  describe(`hostile input on ${store}`, () => {
    let database: TestDatabase | string;
    let dataDir: string;
    let server: ServerProcess | undefined;
    let key: string;

    before(async () => {
      database = store === 'sqlite' ? await createSqliteDatabase() : await createPostgresDatabase();
      if (typeof database === 'string') return;
      dataDir = await mkdtemp(join(tmpdir(), 'vidgen-hostile-'));
      const env = {
        VIDGEN_DATA_DIR: dataDir,
        VIDGEN_DATABASE_URL: database.location,
        VIDGEN_BODY_LIMIT_MB: '1',
        VIDGEN_UPLOAD_LIMIT_MB: '1',
        VIDGEN_SIGNING_SECRET: 'hostile',
        VIDGEN_ADMIN_TOKEN: ADMIN_TOKEN,
      };
      key = (await runServerCommand(['keys', 'create', '--account', HOSTILE_ACCOUNT], env)).stdout.trim();
      server = await spawnServer(env);
    });
    after(async () => {
      await server?.stop();
      if (typeof database !== 'string') await database.drop();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    it('names what is wrong: the body, the id, the filter, the field', async (t) => {
      if (typeof database === 'string') return t.skip(database);
      const deep = '['.repeat(10_000) + ']'.repeat(10_000);
      const expect = async (c: HostileCase, status: number, code: string, param?: string) => {
        const answer = await send(server!.url, key, c);
        assert.equal(answer.status, status, `${c.name}: ${answer.body}`);
        assert.ok(answer.headers['x-request-id'], `${c.name}: x-request-id`);
        const error = JSON.parse(answer.body).error;
        assert.equal(error.code, code, c.name);
        if (param !== undefined) assert.equal(error.param, param, c.name);
      };
      const json = { 'content-type': 'application/json', 'idempotency-key': 'deep' };
      await expect(
        { name: 'deep body', method: 'POST', path: '/v1/videos/generations', headers: json, body: deep },
        400,
        'invalid_body',
        'body',
      );
      await expect(
        {
          name: 'NUL prompt',
          method: 'POST',
          path: '/v1/video/generations',
          headers: json,
          body: JSON.stringify({ model: 'video-v1-5s', prompt: 'a\u0000' }),
        },
        400,
        'invalid_value',
        'prompt',
      );
      await expect({ name: 'NUL id', method: 'GET', path: '/v1/videos/a%00b' }, 404, 'task_not_found');
      await expect({ name: 'NUL file id', method: 'DELETE', path: '/v1/files/%00' }, 404, 'file_not_found');
      await expect({ name: 'NUL filter', method: 'GET', path: '/v1/videos?model=%00' }, 400, 'invalid_value', 'model');
      await expect(
        { name: 'repeated filter', method: 'GET', path: '/v1/videos?after=a&after=b' },
        400,
        'invalid_value',
        'after',
      );
      // A fraction of a millisecond is a valid time (rounded down), not a 500 from a bigint column.
      assert.equal(
        (
          await send(server!.url, key, {
            name: 'tiny',
            method: 'GET',
            path: '/v1/video/generations?created_after=0.0000001',
          })
        ).status,
        200,
      );
      for (const n of ['1e20', '1e308', '-1', '0x10']) {
        await expect(
          { name: `created_after=${n}`, method: 'GET', path: `/v1/video/generations?created_after=${n}` },
          400,
          'invalid_created_after',
          'created_after',
        );
      }
      await expect({ name: 'long id', method: 'GET', path: `/v1/videos/${'x'.repeat(500)}` }, 414, 'uri_too_long');
      await expect({ name: 'bad encoding', method: 'GET', path: '/v1/video/generations/%zz' }, 400, 'invalid_url');
      await expect(
        { name: 'huge header', method: 'GET', path: '/v1/models', headers: { 'x-pad': 'p'.repeat(64 * 1024) } },
        431,
        'headers_too_large',
      );
      const form = (purpose: string) =>
        Buffer.from(`--b\r\ncontent-disposition: form-data; name="purpose"\r\n\r\n${purpose}\r\n--b--\r\n`);
      const multipart = { 'content-type': 'multipart/form-data; boundary=b' };
      await expect(
        { name: 'long purpose', method: 'POST', path: '/v1/files', headers: multipart, body: form('p'.repeat(51)) },
        400,
        'missing_field',
        'file',
      );
      await expect(
        {
          name: 'no boundary',
          method: 'POST',
          path: '/v1/files',
          headers: { 'content-type': 'multipart/form-data' },
          body: form('x'),
        },
        400,
        'invalid_multipart',
      );
    });

    it('answers every malformed request with a 4xx in the envelope, writes nothing and stays up', async (t) => {
      if (typeof database === 'string') return t.skip(database);
      const png = await makeImage(64, 48);
      const cases = [
        ...hostileCases(png),
        ...adminWriteCases(ADMIN_TOKEN),
        ...multipartWriteCases(await makeClip({ width: 64, height: 48, seconds: 1, fps: 8 }), png),
      ];
      const failures: string[] = [];
      let fiveXx = 0;
      // Some odd requests are valid (family B ignores fields it does not know): each accepted
      // create must have written exactly one row, each refused one nothing.
      const accepted = { tasks: 0, files: 0 };
      await inParallel(cases, 6, async (c) => {
        const answer = await send(server!.url, key, c).catch(
          (err: Error) => ({ status: 0, headers: {}, body: err.message }) as RawAnswer,
        );
        if (answer.status >= 500) fiveXx++;
        if (c.method === 'POST' && answer.status < 300 && !c.path.includes('/cancel'))
          accepted[c.path === '/v1/files' ? 'files' : 'tasks']++;
        const problem = judge(c, answer);
        if (problem) failures.push(`${c.name}: ${problem}`);
      });
      t.diagnostic(
        `${store}: ${cases.length} malformed requests, ${fiveXx} answered 5xx, ${accepted.tasks} creates accepted as valid`,
      );
      assert.deepEqual(failures, []);
      assert.equal(server!.child.exitCode, null, 'the server is still running');
      assert.equal((await fetch(`${server!.url}/readyz`)).status, 200);

      const db = await openSqlDatabase(database.location);
      try {
        type Counted = 'tasks' | 'files' | 'idempotency_keys' | 'account_plans' | 'ledger_entries' | 'price_groups';
        const count = async (table: Counted | 'key_quotas') =>
          Number(
            (
              await db.db
                .selectFrom(table)
                .select((eb) => eb.fn.countAll<number>().as('n'))
                .executeTakeFirstOrThrow()
            ).n,
          );
        assert.equal(await count('tasks'), accepted.tasks, 'a task for each accepted create, none for a refused one');
        assert.equal(await count('files'), accepted.files, 'no file row for a refused upload');
        // The admin writes: every one was refused, so no account, plan, grant, group or quota was made.
        const names = (await db.db.selectFrom('accounts').select('name').execute()).map((a) => a.name);
        assert.deepEqual(names, [HOSTILE_ACCOUNT], 'no account left by a refused create');
        for (const table of ['account_plans', 'ledger_entries', 'price_groups', 'key_quotas'] as const)
          assert.equal(await count(table), 0, `nothing in ${table} after refused admin writes`);
        const keyed = await db.db.selectFrom('idempotency_keys').select(['task_id']).execute();
        assert.ok(
          keyed.every((row) => row.task_id !== null),
          'no Idempotency-Key reservation left behind',
        );
      } finally {
        await db.close();
      }
      assert.equal(
        (await filesUnder(join(dataDir, 'blobs'))).length,
        accepted.files,
        'no blob written for a refused upload',
      );
    });
  });
}

function send(baseUrl: string, key: string, c: HostileCase): Promise<RawAnswer> {
  const headers: Record<string, string> = { host: '127.0.0.1', authorization: `Bearer ${key}`, ...c.headers };
  if (!headers.authorization) delete headers.authorization;
  const body = c.body === undefined ? undefined : Buffer.isBuffer(c.body) ? c.body : Buffer.from(c.body, 'utf8');
  if (body) headers['content-length'] = String(body.length);
  if (c.declaredLength) headers['content-length'] = String(c.declaredLength);
  const head = [
    `${c.method} ${c.path} HTTP/1.1`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    'connection: close',
    '',
    '',
  ].join('\r\n');
  return rawRequest(baseUrl, Buffer.from(head, 'latin1').toString('latin1'), body);
}

/** What is wrong with an answer, or undefined. */
function judge(c: HostileCase, answer: RawAnswer): string | undefined {
  if (answer.status === 0) return `no answer (${answer.body})`;
  if (answer.status >= 500) return `${answer.status} ${answer.body.slice(0, 200)}`;
  if (!answer.headers['x-request-id']) return `${answer.status} without x-request-id`;
  if (c.refused && (answer.status < 400 || answer.status >= 500))
    return `${answer.status}, not refused: ${answer.body}`;
  if (answer.status < 400 || c.method === 'HEAD') return undefined;
  let parsed: any;
  try {
    parsed = JSON.parse(answer.body);
  } catch {
    return `${answer.status} body is not JSON: ${answer.body.slice(0, 100)}`;
  }
  const e = parsed?.error;
  if (typeof e?.message !== 'string' || typeof e?.code !== 'string' || typeof e?.type !== 'string' || !('param' in e)) {
    return `${answer.status} not in the error envelope: ${answer.body.slice(0, 200)}`;
  }
  return undefined;
}

async function inParallel<T>(items: T[], width: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await run(items[next++]);
    }),
  );
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath ?? e.path, e.name));
}
