import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI, { toFile } from 'openai';
import {
  createPostgresDatabase,
  createSqliteDatabase,
  type TestDatabase,
} from '../../packages/server/test/support/databases.ts';
import { PRICED_MODELS, startEconomicsService, TICKS_PER_SECOND, type EconomicsService } from './support/economics.ts';
import { batchFileLines, untilBatchEnded } from './support/batches.ts';

/** Half the catalog's price of a 1 s model: the batch price (catalog `batch_ratio` unset, 0.5). */
const LINE_PRICE = TICKS_PER_SECOND / 2;

const line = (customId: string, body: Record<string, unknown>, url = '/v1/videos') =>
  JSON.stringify({ custom_id: customId, method: 'POST', url, body });
const jsonl = (lines: string[]) => `${lines.join('\n')}\n`;
const statusOf = (err: unknown) => (err as { status?: number }).status;

const readJsonl = batchFileLines;

// OpenAI's Batch API over videos through the real `openai` Node SDK (src/resources/batches.ts,
// src/resources/files.ts): files.create({purpose: "batch"}), batches.create/retrieve/list/cancel,
// files.content for the output and error files; the batch price on the ledger; a bad line and a
// line nobody can pay for in the error file while the others complete; tenant isolation.
for (const [name, create] of [
  ['SQLite', createSqliteDatabase],
  ['PostgreSQL', createPostgresDatabase],
] as const) {
  const created = await create();
  describe(`batches through the openai Node SDK (${name})`, {
    skip: typeof created === 'string' ? created : false,
  }, () => {
    let db: TestDatabase;
    let svc: EconomicsService;
    const sdk = (key: string) => new OpenAI({ apiKey: key, baseURL: `${svc.url}/v1`, maxRetries: 0 });
    const upload = async (client: OpenAI, text: string) =>
      client.files.create({ file: await toFile(Buffer.from(text), 'batch.jsonl'), purpose: 'batch' });
    const untilEnded = untilBatchEnded;
    before(async () => {
      db = created as TestDatabase;
      svc = await startEconomicsService(name === 'PostgreSQL' ? db.location : undefined, {}, PRICED_MODELS);
    });
    after(async () => {
      await svc?.close();
      await db?.drop();
    });

    it('runs a batch: good lines to the output file at the batch price, a bad body to the error file', async () => {
      const client = sdk(await svc.account('batch-main', { credits_usd_ticks: 10 * TICKS_PER_SECOND }));
      const other = sdk(await svc.account('batch-other', { credits_usd_ticks: 10 * TICKS_PER_SECOND }));
      const file = await upload(
        client,
        jsonl([
          line('kite', { model: 'tiny-o', prompt: 'a kite', seconds: '1' }),
          line('no-prompt', { model: 'tiny-o' }),
          line('boat', { model: 'tiny-o', prompt: 'a boat' }),
          line('kite', { model: 'tiny-o', prompt: 'a second kite' }),
        ]),
      );
      const batch = await client.batches.create({
        input_file_id: file.id,
        endpoint: '/v1/videos',
        completion_window: '24h',
        metadata: { project: 'kites' },
      });
      assert.match(batch.id, /^batch_/);
      assert.equal(batch.object, 'batch');
      assert.equal(batch.status, 'validating');
      assert.deepEqual(batch.metadata, { project: 'kites' });
      assert.equal(batch.expires_at, batch.created_at + 24 * 3600);

      // Another account sees nothing of it.
      await assert.rejects(other.batches.retrieve(batch.id), (err) => statusOf(err) === 404);
      await assert.rejects(other.batches.cancel(batch.id), (err) => statusOf(err) === 404);
      assert.deepEqual((await other.batches.list()).data, []);

      const done = await untilEnded(client, batch.id);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.deepEqual(done.request_counts, { total: 4, completed: 2, failed: 2 });
      for (const at of [done.in_progress_at, done.finalizing_at, done.completed_at])
        assert.ok(typeof at === 'number' && at >= batch.created_at);
      assert.equal((done as any).cost_in_usd_ticks, 2 * LINE_PRICE);

      const output = await readJsonl(client, done.output_file_id as string);
      assert.deepEqual(output.map((l) => l.custom_id).sort(), ['boat', 'kite']);
      for (const l of output) {
        assert.match(l.id, /^batch_req_/);
        assert.equal(l.error, null);
        assert.equal(l.response.status_code, 200);
        assert.match(l.response.request_id, /^req-/);
        assert.match(l.response.body.id, /^video_/);
        assert.equal(l.response.body.status, 'completed');
        // A content path, never a signed link.
        assert.doesNotMatch(JSON.stringify(l.response.body), /[?&](sig|signature|expires)=/);
      }
      const [refused, duplicate, ...more] = await readJsonl(client, done.error_file_id as string);
      assert.deepEqual(more, []);
      assert.deepEqual(
        [duplicate.custom_id, duplicate.response, duplicate.error.code, duplicate.error.param],
        ['kite', null, 'duplicate_custom_id', 'custom_id'],
      );
      const errors = [refused];
      assert.equal(errors[0].custom_id, 'no-prompt');
      assert.equal(errors[0].response.status_code, 400);
      assert.deepEqual(
        [errors[0].response.body.error.code, errors[0].response.body.error.param],
        ['missing_field', 'prompt'],
      );
      const meta = await client.files.retrieve(done.output_file_id as string);
      assert.equal(meta.purpose, 'batch_output');
      assert.ok((meta as any).expires_at > done.completed_at!);
      await assert.rejects(other.files.content(done.output_file_id as string), (err) => statusOf(err) === 404);

      // The ledger: each line held and settled at half the catalog's price.
      const ledger = (await svc.admin.get('/admin/v1/ledger?account=batch-main&limit=100')).body.data;
      const byKind = (kind: string) => ledger.filter((e: any) => e.kind === kind).map((e: any) => e.amount_usd_ticks);
      assert.deepEqual(byKind('hold'), [LINE_PRICE, LINE_PRICE]);
      assert.deepEqual(byKind('settle'), [LINE_PRICE, LINE_PRICE]);
      assert.deepEqual((await svc.verify()).problems, []);

      const listed = await client.batches.list({ limit: 10 });
      assert.deepEqual(
        listed.data.map((b) => b.id),
        [batch.id],
      );
      await assert.rejects(client.batches.cancel(batch.id), (err) => statusOf(err) === 409);
    });

    it('writes a line nobody can pay for as insufficient_quota, and the others still complete', async () => {
      const client = sdk(await svc.account('batch-poor', { credits_usd_ticks: LINE_PRICE }));
      const file = await upload(
        client,
        jsonl([
          line('first', { model: 'tiny-1s', prompt: 'one' }, '/v1/video/generations'),
          line('second', { model: 'tiny-1s', prompt: 'two' }, '/v1/video/generations'),
        ]),
      );
      const batch = await client.batches.create({
        input_file_id: file.id,
        endpoint: '/v1/video/generations' as '/v1/videos',
        completion_window: '24h',
      });
      const done = await untilEnded(client, batch.id);
      assert.equal(done.status, 'completed');
      assert.deepEqual(done.request_counts, { total: 2, completed: 1, failed: 1 });
      const [output] = await readJsonl(client, done.output_file_id as string);
      assert.equal(output.custom_id, 'first');
      assert.equal(output.response.body.status, 'SUCCESS');
      const [refused] = await readJsonl(client, done.error_file_id as string);
      assert.deepEqual(
        [refused.custom_id, refused.response, refused.error.code],
        ['second', null, 'insufficient_quota'],
      );
      assert.deepEqual((await svc.verify()).problems, []);
    });

    it('refuses a bad create in the OpenAI envelope, and cancels a batch', async () => {
      const client = sdk(await svc.account('batch-cancel', { credits_usd_ticks: 1000 * TICKS_PER_SECOND }));
      const file = await upload(
        client,
        jsonl(
          Array.from({ length: 4 }, (_, i) =>
            line(`long-${i}`, { model: 'tiny-long', prompt: `p${i}` }, '/v1/video/generations'),
          ),
        ),
      );
      for (const [body, param] of [
        [{ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' }, 'endpoint'],
        [{ input_file_id: file.id, endpoint: '/v1/videos', completion_window: '1h' }, 'completion_window'],
        [{ input_file_id: 'file-none', endpoint: '/v1/videos', completion_window: '24h' }, 'input_file_id'],
      ] as const) {
        await assert.rejects(client.batches.create(body as never), (err: any) => {
          assert.ok([400, 404].includes(err.status), String(err.status));
          assert.equal(err.param, param);
          assert.match(err.headers.get('x-request-id'), /^req-/);
          return true;
        });
      }
      const batch = await client.batches.create({
        input_file_id: file.id,
        endpoint: '/v1/video/generations' as '/v1/videos',
        completion_window: '24h',
      });
      const cancelling = await client.batches.cancel(batch.id);
      assert.equal(cancelling.status, 'cancelling');
      assert.equal(typeof cancelling.cancelling_at, 'number');
      const done = await untilEnded(client, batch.id);
      assert.equal(done.status, 'cancelled');
      assert.equal(typeof done.cancelled_at, 'number');
      assert.equal(done.request_counts?.completed, 0);
      assert.equal(done.request_counts?.failed, done.request_counts?.total);
      if (done.request_counts?.total) {
        const errors = await readJsonl(client, done.error_file_id as string);
        assert.deepEqual(new Set(errors.map((e) => e.error.code)), new Set(['batch_cancelled']));
      }
      const account = (await svc.admin.get('/admin/v1/accounts/batch-cancel')).body;
      assert.equal(account.held_usd_ticks, 0);
      assert.deepEqual((await svc.verify()).problems, []);
    });
  });
}
