import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI, { toFile } from 'openai';
import {
  createPostgresDatabase,
  createSqliteDatabase,
  type TestDatabase,
} from '../../packages/server/test/support/databases.ts';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../packages/server/src/config.ts';
import { startService, type RunningService } from '../../packages/server/src/main.ts';
import { createLogger } from '../../packages/server/src/logging.ts';
import { api } from './support/http.ts';
import { startWebhookReceiver } from './support/webhook-receiver.ts';
import {
  ADMIN_TOKEN,
  PRICED_MODELS,
  startEconomicsService,
  TICKS_PER_SECOND,
  type EconomicsService,
} from './support/economics.ts';
import { BATCH_ENDED, batchFileLines, familyBLine, untilBatch, untilBatchEnded } from './support/batches.ts';

/** A 1 s line at the batch price: half the catalog's (`batch_ratio` unset). */
const LINE_PRICE = TICKS_PER_SECOND / 2;
const line = (customId: string, model = 'tiny-1s') => familyBLine(customId, model);

// The rules a batch's lines follow (docs/batch.md, "Money of a batch"; docs/economics.md): they are
// exempt from the account's rate and active-task limits, but a key's quota and the account's spend
// caps refuse a line as `insufficient_quota`; and a cancelled batch sends `batch.cancelled`.
for (const [name, create] of [
  ['SQLite', createSqliteDatabase],
  ['PostgreSQL', createPostgresDatabase],
] as const) {
  const created = await create();
  describe(`batch rules (${name})`, { skip: typeof created === 'string' ? created : false }, () => {
    let db: TestDatabase;
    let svc: EconomicsService;
    const receivers: Array<Awaited<ReturnType<typeof startWebhookReceiver>>> = [];
    before(async () => {
      db = created as TestDatabase;
      svc = await startEconomicsService(name === 'PostgreSQL' ? db.location : undefined);
    });
    after(async () => {
      await svc?.close();
      for (const r of receivers) await r.close();
      await db?.drop();
    });

    const keyOf = async (account: string) => {
      const key = await svc.admin.post(`/admin/v1/accounts/${account}/keys`);
      assert.equal(key.status, 200, JSON.stringify(key.body));
      return { id: key.body.id as string, secret: key.body.key as string };
    };
    const submitBatch = async (key: string, lines: string[]) => {
      const client = new OpenAI({ apiKey: key, baseURL: `${svc.url}/v1`, maxRetries: 0 });
      const file = await client.files.create({
        file: await toFile(Buffer.from(`${lines.join('\n')}\n`), 'lines.jsonl'),
        purpose: 'batch',
      });
      const batch = await client.batches.create({
        input_file_id: file.id,
        endpoint: '/v1/video/generations' as '/v1/videos',
        completion_window: '24h',
      });
      return { client, batch };
    };
    const until = untilBatch;
    const ended = untilBatchEnded;
    const fileLines = batchFileLines;

    it('sends batch.cancelled to an endpoint subscribed with batch.* once a batch is cancelled', async () => {
      const key = await svc.account('rules-cancel', { credits_usd_ticks: 1000 * TICKS_PER_SECOND });
      const inbox = await startWebhookReceiver();
      receivers.push(inbox);
      const endpoint = await api(svc.url, key).post('/v1/webhooks', { url: inbox.url, events: ['batch.*'] });
      assert.equal(endpoint.status, 200, JSON.stringify(endpoint.body));
      const { client, batch } = await submitBatch(
        key,
        ['a', 'b', 'c'].map((id) => line(id, 'tiny-long')),
      );
      await until(client, batch.id, (b) => b.status === 'in_progress' && b.request_counts?.total === 3);
      assert.equal((await client.batches.cancel(batch.id)).status, 'cancelling');
      const done = await ended(client, batch.id);
      assert.equal(done.status, 'cancelled', JSON.stringify(done));
      assert.equal(typeof done.cancelled_at, 'number');
      await inbox.until((all) => all.some((r) => JSON.parse(r.body).type === 'batch.cancelled'));
      const events = inbox.received.map((r) => JSON.parse(r.body));
      assert.deepEqual(
        events.map((e) => e.type),
        ['batch.cancelled'],
      );
      assert.deepEqual([events[0].data.id, events[0].data.status], [batch.id, 'cancelled']);
      assert.deepEqual((await svc.verify()).problems, []);
    });

    it('runs every line of a batch past requests_per_minute 1 and max_active_tasks 1; a submit is still refused', async () => {
      const key = await svc.account('rules-limited', { credits_usd_ticks: 1000 * TICKS_PER_SECOND });
      const patched = await svc.admin.call('PATCH', '/admin/v1/accounts/rules-limited', {
        limits: { requests_per_minute: 1, max_active_tasks: 1 },
      });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      const { client, batch } = await submitBatch(
        key,
        ['x', 'y', 'z'].map((id) => line(id)),
      );
      const done = await ended(client, batch.id);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.deepEqual(done.request_counts, { total: 3, completed: 3, failed: 0 });
      assert.equal(done.error_file_id, null);
      assert.deepEqual(
        (await fileLines(client, done.output_file_id)).map((l) => l.custom_id),
        ['x', 'y', 'z'],
      );
      // The batch's lines used none of the key's one request a minute: the first submit passes, and
      // the second is over the rate limit (and over the active-task cap while the first is unfinished).
      const rest = api(svc.url, key);
      const first = await rest.post('/v1/video/generations', { model: 'tiny-1s', prompt: 'first' });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      const second = await rest.post('/v1/video/generations', { model: 'tiny-1s', prompt: 'second' });
      assert.equal(second.status, 429, JSON.stringify(second.body));
      assert.ok(['too_many_tasks', 'rate_limit_exceeded'].includes(second.body.error.code), second.body.error.code);
    });

    it('refuses the line past a key quota of 2 tasks as insufficient_quota; the other two complete', async () => {
      await svc.account('rules-quota', { credits_usd_ticks: 1000 * TICKS_PER_SECOND });
      const key = await keyOf('rules-quota');
      const set = await svc.admin.call('PATCH', `/admin/v1/accounts/rules-quota/keys/${key.id}`, {
        quota: { max_tasks: 2 },
      });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      const { client, batch } = await submitBatch(
        key.secret,
        ['q1', 'q2', 'q3'].map((id) => line(id)),
      );
      const done = await ended(client, batch.id);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.deepEqual(done.request_counts, { total: 3, completed: 2, failed: 1 });
      assert.deepEqual(
        (await fileLines(client, done.output_file_id)).map((l) => l.custom_id),
        ['q1', 'q2'],
      );
      const errors = await fileLines(client, done.error_file_id);
      assert.deepEqual(
        errors.map((e) => [e.custom_id, e.response, e.error?.code]),
        [['q3', null, 'insufficient_quota']],
      );
      const listed = (await svc.admin.get('/admin/v1/accounts/rules-quota/keys')).body.data.find(
        (k: { id: string }) => k.id === key.id,
      );
      assert.equal(listed.quota.tasks_used, 2);
      assert.equal(listed.quota.usd_ticks_used, 2 * LINE_PRICE);
      assert.deepEqual((await svc.verify()).problems, []);
    });

    it('refuses the line past the daily spend cap as insufficient_quota; the lines under it complete', async () => {
      const key = await svc.account('rules-cap', {
        credits_usd_ticks: 1000 * TICKS_PER_SECOND,
        limits: { max_daily_usd_ticks: 2 * LINE_PRICE },
      });
      const { client, batch } = await submitBatch(
        key,
        ['c1', 'c2', 'c3'].map((id) => line(id)),
      );
      const done = await ended(client, batch.id);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.deepEqual(done.request_counts, { total: 3, completed: 2, failed: 1 });
      const errors = await fileLines(client, done.error_file_id);
      assert.deepEqual(
        errors.map((e) => [e.custom_id, e.error?.code]),
        [['c3', 'insufficient_quota']],
      );
      const account = (await svc.admin.get('/admin/v1/accounts/rules-cap')).body;
      assert.equal(account.balance_usd_ticks, 1000 * TICKS_PER_SECOND - 2 * LINE_PRICE);
      assert.deepEqual((await svc.verify()).problems, []);
    });
  });
}

// A batch whose input file is gone before it is read fails whole, with no race: an API-only process
// (no batch sweeper) takes the batch and the file's deletion, and only then does a process with a
// worker start and read the batch (docs/batch.md, "Statuses": `failed` with `errors.data`).
for (const [name, create] of [
  ['SQLite', createSqliteDatabase],
  ['PostgreSQL', createPostgresDatabase],
] as const) {
  const created = await create();
  describe(`a batch whose input file was deleted (${name})`, {
    skip: typeof created === 'string' ? created : false,
  }, () => {
    let db: TestDatabase;
    let dataDir: string;
    const running: RunningService[] = [];
    let inbox: Awaited<ReturnType<typeof startWebhookReceiver>> | undefined;
    before(async () => {
      db = created as TestDatabase;
      dataDir = await mkdtemp(join(tmpdir(), 'vidgen-batch-failed-'));
      await writeFile(join(dataDir, 'models.json'), JSON.stringify(PRICED_MODELS));
    });
    after(async () => {
      for (const s of running) await s.close();
      await inbox?.close();
      await db?.drop();
      await rm(dataDir, { recursive: true, force: true });
    });
    const start = async (role: 'api' | 'all') => {
      const config = loadConfig({
        VIDGEN_DATA_DIR: dataDir,
        PORT: '0',
        VIDGEN_ALLOW_PRIVATE_URLS: '1',
        VIDGEN_POLL_MS: '50',
        VIDGEN_MODELS_FILE: join(dataDir, 'models.json'),
        VIDGEN_ADMIN_TOKEN: ADMIN_TOKEN,
        VIDGEN_WORKER_CONCURRENCY: '1',
        VIDGEN_ROLE: role,
        ...(name === 'PostgreSQL' ? { VIDGEN_DATABASE_URL: db.location } : {}),
      });
      const service = await startService(config, createLogger('silent'));
      running.push(service);
      return service;
    };

    it('ends failed with invalid_file and failed_at, and sends batch.failed', async () => {
      const apiOnly = await start('api');
      const admin = api(apiOnly.url, ADMIN_TOKEN);
      assert.equal((await admin.post('/admin/v1/accounts', { id: 'rules-failed' })).status, 200);
      const key = (await admin.post('/admin/v1/accounts/rules-failed/keys')).body.key as string;
      inbox = await startWebhookReceiver();
      const endpoint = await api(apiOnly.url, key).post('/v1/webhooks', { url: inbox.url, events: ['batch.*'] });
      assert.equal(endpoint.status, 200, JSON.stringify(endpoint.body));
      const client = new OpenAI({ apiKey: key, baseURL: `${apiOnly.url}/v1`, maxRetries: 0 });
      const file = await client.files.create({
        file: await toFile(Buffer.from(`${line('gone')}\n`), 'lines.jsonl'),
        purpose: 'batch',
      });
      const batch = await client.batches.create({
        input_file_id: file.id,
        endpoint: '/v1/video/generations' as '/v1/videos',
        completion_window: '24h',
      });
      assert.equal(batch.status, 'validating');
      assert.equal((await client.files.delete(file.id)).deleted, true);
      assert.equal(
        (await client.batches.retrieve(batch.id)).status,
        'validating',
        'an API-only process reads no batch',
      );
      await apiOnly.close();
      running.pop();

      const worker = await start('all');
      const sdk = new OpenAI({ apiKey: key, baseURL: `${worker.url}/v1`, maxRetries: 0 });
      let done = await sdk.batches.retrieve(batch.id);
      while (!BATCH_ENDED.includes(done.status)) {
        await new Promise((r) => setTimeout(r, 100));
        done = await sdk.batches.retrieve(batch.id);
      }
      assert.equal(done.status, 'failed', JSON.stringify(done));
      assert.equal(done.errors?.data?.[0]?.code, 'invalid_file', JSON.stringify(done.errors));
      assert.ok(
        Number.isInteger(done.failed_at) && (done.failed_at as number) >= batch.created_at,
        `failed_at ${done.failed_at}`,
      );
      assert.ok((done.failed_at as number) < 1e11, 'failed_at is in seconds');
      assert.deepEqual([done.output_file_id, done.error_file_id], [null, null]);
      await inbox.until((all) => all.length >= 1);
      const events = inbox.received.map((r) => JSON.parse(r.body));
      assert.deepEqual(
        events.map((e) => [e.type, e.data.id, e.data.status, e.data.errors?.data?.[0]?.code]),
        [['batch.failed', batch.id, 'failed', 'invalid_file']],
      );
    });
  });
}
