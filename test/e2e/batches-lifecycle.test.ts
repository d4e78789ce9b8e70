import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI, { toFile } from 'openai';
import {
  createPostgresDatabase,
  createSqliteDatabase,
  type TestDatabase,
} from '../../packages/server/test/support/databases.ts';
import { api } from './support/http.ts';
import { startWebhookReceiver } from './support/webhook-receiver.ts';
import { PRICED_MODELS, startEconomicsService, TICKS_PER_SECOND, type EconomicsService } from './support/economics.ts';
import { BATCH_ENDED, batchFileLines, familyBLine, untilBatch } from './support/batches.ts';

const DAY_MS = 24 * 3600 * 1000;
const line = familyBLine;

// A batch's window on the service's own clock (injected: the test moves it a day on), and the
// `batch.*` events an endpoint subscribed with the wildcard gets, written as the batch ends.
for (const [name, create] of [
  ['SQLite', createSqliteDatabase],
  ['PostgreSQL', createPostgresDatabase],
] as const) {
  const created = await create();
  describe(`batch lifecycle (${name})`, { skip: typeof created === 'string' ? created : false }, () => {
    let db: TestDatabase;
    let svc: EconomicsService;
    let offset = 0;
    const receivers: Array<Awaited<ReturnType<typeof startWebhookReceiver>>> = [];
    before(async () => {
      db = created as TestDatabase;
      svc = await startEconomicsService(name === 'PostgreSQL' ? db.location : undefined, {}, PRICED_MODELS, {
        clock: () => Date.now() + offset,
      });
    });
    after(async () => {
      await svc?.close();
      for (const r of receivers) await r.close();
      await db?.drop();
    });

    const start = async (account: string, lines: string[]) => {
      const key = await svc.account(account, { credits_usd_ticks: 1000 * TICKS_PER_SECOND });
      const inbox = await startWebhookReceiver();
      receivers.push(inbox);
      const endpoint = await api(svc.url, key).post('/v1/webhooks', { url: inbox.url, events: ['batch.*'] });
      assert.deepEqual(endpoint.body.events, ['batch.completed', 'batch.failed', 'batch.expired', 'batch.cancelled']);
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
      return { client, inbox, batch };
    };
    const until = untilBatch;
    const eventsOf = (inbox: { received: Array<{ body: string }> }) => inbox.received.map((r) => JSON.parse(r.body));

    it('sends batch.completed with the Batch object when a batch completes', async () => {
      const { client, inbox, batch } = await start('life-done', [line('one', 'tiny-1s')]);
      const done = await until(client, batch.id, (b) => BATCH_ENDED.includes(b.status));
      assert.equal(done.status, 'completed');
      await inbox.until((all) => all.length === 1);
      const [event] = eventsOf(inbox);
      assert.equal(event.type, 'batch.completed');
      assert.deepEqual(
        [event.data.id, event.data.object, event.data.status, event.data.request_counts],
        [batch.id, 'batch', 'completed', { total: 1, completed: 1, failed: 0 }],
      );
      assert.match(inbox.received[0].headers['webhook-id'] as string, /./);
    });

    it('expires past its 24 h window: lines not started are cancelled, released and written as batch_expired', async () => {
      const lines = ['a', 'b', 'c', 'd'].map((id) => line(id, 'tiny-long'));
      const { client, inbox, batch } = await start('life-expired', lines);
      // Every line queued (one slot: the first runs, the rest wait), then the clock moves past the window.
      await until(client, batch.id, (b) => b.status === 'in_progress' && b.request_counts?.total === 4);
      const account = async () => (await svc.admin.get('/admin/v1/accounts/life-expired')).body;
      while ((await account()).held_usd_ticks < 4 * 30 * TICKS_PER_SECOND) await new Promise((r) => setTimeout(r, 50));
      offset += DAY_MS + 3600_000;
      const done = await until(client, batch.id, (b) => BATCH_ENDED.includes(b.status));
      assert.equal(done.status, 'expired', JSON.stringify(done));
      assert.equal(typeof done.expired_at, 'number');
      const counts = done.request_counts as { total: number; completed: number; failed: number };
      assert.equal(counts.completed + counts.failed, 4);
      const errors = await batchFileLines(client, done.error_file_id);
      const expired = errors.filter((e) => e.error?.code === 'batch_expired');
      assert.ok(expired.length >= 3, JSON.stringify(errors));
      assert.equal(counts.failed, errors.length);
      // Every hold was closed: released for the lines that never ran.
      assert.equal((await account()).held_usd_ticks, 0);
      assert.deepEqual((await svc.verify()).problems, []);
      await inbox.until((all) => all.some((r) => JSON.parse(r.body).type === 'batch.expired'));
      const event = eventsOf(inbox).find((e) => e.type === 'batch.expired');
      assert.equal(event.data.status, 'expired');
    });
  });
}
