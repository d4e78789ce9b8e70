import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  NodeVidgenClient,
  FileJournal,
  UnprocessableEntityError,
  type FamilyBCreateResponse,
} from '../../packages/client/src/node/index.ts';
import { startLossyProxy } from '../../packages/client/test/support/lossy-proxy.ts';
import { startTestService, type TestService } from './support/service.ts';

// Obligation 2 and the server features it leans on (Idempotency-Key replay, listing by key,
// long-poll), driven through a proxy that loses answers after the server processed them.
describe('SDK idempotency, listing and long-poll', () => {
  let svc: TestService;
  let proxy: Awaited<ReturnType<typeof startLossyProxy>>;
  let key: string;
  let dir: string;
  before(async () => {
    svc = await startTestService();
    proxy = await startLossyProxy(svc.url);
    key = await svc.createKey('idem');
    dir = await mkdtemp(join(tmpdir(), 'vidgen-idem-'));
  });
  after(async () => {
    await proxy.close();
    await svc.close();
    await rm(dir, { recursive: true, force: true });
  });
  const direct = () => new NodeVidgenClient({ baseURL: svc.url, apiKey: key });
  const viaProxy = (opts: { journalDir?: string; fetch?: typeof fetch; timeout?: number } = {}) =>
    new NodeVidgenClient({
      baseURL: proxy.url,
      apiKey: key,
      maxRetries: 2,
      backoff: { initialDelayMs: 50, maxDelayMs: 100 },
      ...opts,
    });
  const body = () => ({ model: 'video-v1-5s', prompt: `harbour at dawn ${randomUUID().slice(0, 8)}` });
  const submitB = (client: NodeVidgenClient, b: object, idempotencyKey?: string) =>
    client.submit<FamilyBCreateResponse>({
      family: 'B',
      kind: 'generate',
      path: '/v1/video/generations',
      body: b as { model: string },
      options: { idempotencyKey },
    });
  const tasksWithKey = async (k: string) => (await direct().videoGenerations.list({ idempotency_key: k })).data;
  const posts = () => proxy.seen.filter((r) => r.method === 'POST');

  it('replays the first answer for the same key and body', async () => {
    const client = direct();
    const b = body();
    const k = randomUUID();
    const first = await submitB(client, b, k);
    const again = await submitB(client, { ...b }, k);
    assert.equal(first.replayed, false);
    assert.equal(again.replayed, true);
    assert.equal(again.data.task_id, first.data.task_id);
    assert.equal(client.server.idempotency, true);
    assert.equal((await tasksWithKey(k)).length, 1);
  });

  it('refuses the same key with another body', async () => {
    const k = randomUUID();
    await submitB(direct(), body(), k);
    const err = await submitB(direct(), body(), k).catch((e) => e);
    assert.ok(err instanceof UnprocessableEntityError, String(err));
    assert.equal(err.code, 'idempotency_key_reused');
  });

  it('finds a submit whose answer was lost through the listing, without sending it twice', async () => {
    proxy.seen.length = 0;
    proxy.dropWhen((r) => r.method === 'POST');
    const created = await submitB(viaProxy(), body());
    proxy.dropWhen(() => false);
    assert.equal(created.recovered, true);
    assert.equal(posts().length, 1);
    const listed = await tasksWithKey(created.idempotencyKey);
    assert.deepEqual(
      listed.map((t) => t.task_id),
      [created.data.task_id],
    );
  });

  it('retries with the same key once the server is known to be idempotent, and gets the replay', async () => {
    proxy.seen.length = 0;
    proxy.dropWhen((r, i) => r.method === 'POST' && i === 0);
    const client = viaProxy();
    client.server.idempotency = true;
    const created = await submitB(client, body());
    proxy.dropWhen(() => false);
    assert.equal(created.replayed, true);
    assert.equal(posts().length, 2);
    assert.equal(posts()[0].headers['idempotency-key'], posts()[1].headers['idempotency-key']);
    assert.equal((await tasksWithKey(created.idempotencyKey)).length, 1);
  });

  it('lists newest first and walks every page', async () => {
    const all = (await direct().videoGenerations.list({ limit: 100 })).data;
    assert.ok(all.length >= 4);
    const created = all.map((t) => t.created_at);
    assert.deepEqual(
      created,
      [...created].sort((x, y) => y - x),
    );
    const first = await direct().videoGenerations.list({ limit: 1 });
    assert.equal(first.data.length, 1);
    assert.equal(first.has_more, true);
    const walked: string[] = [];
    for await (const task of first) walked.push(task.task_id);
    assert.deepEqual(
      walked,
      all.map((t) => t.task_id),
    );
    const none = await direct().videos.list({ model: 'vx-imagine-video-1.5-720p' });
    assert.deepEqual(none.data, []);
  });

  it('long-polls (streams off): the wait ends right after the task, not at the next 15 s interval', async () => {
    proxy.seen.length = 0;
    const client = viaProxy();
    const { task_id } = await client.videoGenerations.create(body());
    // A fast, direct watcher marks when the task really finished.
    const finishedAt = direct()
      .videoGenerations.wait(task_id, { intervalMs: 100, longPollSeconds: 0 })
      .then(() => Date.now());
    const task = await client.videoGenerations.wait(task_id, { maxWaitMs: 120_000, stream: false });
    const endedAt = Date.now();
    assert.equal(task.status, 'SUCCESS');
    const lag = endedAt - (await finishedAt);
    assert.ok(lag < 3_000, `the long-polling wait ended ${lag} ms after the task`);
    const polls = proxy.seen.filter((r) => r.method === 'GET');
    assert.ok(
      polls.every((r) => /[?&]wait=\d+/.test(r.url)),
      polls.map((r) => r.url).join(' '),
    );
  });

  it('resume finishes submits a crash interrupted, before and after they were sent', async () => {
    const journalDir = join(dir, 'journal');
    const hang = () => new Promise<Response>(() => undefined);
    // The process "dies" with the request in flight: after the server got it, and before it was sent.
    const afterSend: typeof fetch = async (input, init) => (await fetch(input, init), hang());
    const beforeSend: typeof fetch = () => hang();
    const outputs = [join(dir, 'sent.mp4'), join(dir, 'unsent.mp4')];
    for (const [i, crashingFetch] of [afterSend, beforeSend].entries()) {
      const doomed = viaProxy({ journalDir, fetch: crashingFetch, timeout: 1_000 });
      void doomed.videoGenerations.create(body(), { downloadTo: outputs[i] }).catch(() => undefined);
    }
    await waitUntil(async () => (await new FileJournal(journalDir).list()).length === 2);
    await new Promise((r) => setTimeout(r, 200));
    const entries = await new FileJournal(journalDir).list();
    assert.deepEqual(
      entries.map((e) => e.state),
      ['submitting', 'submitting'],
    );

    // Resumed against the base URL the submits went to: a journal entry belongs to its server.
    const results = await viaProxy({ journalDir }).resume({ intervalMs: 250 });
    assert.deepEqual(
      results.map((r) => r.outcome),
      ['downloaded', 'downloaded'],
    );
    for (const [i, entry] of entries.entries()) {
      assert.equal((await tasksWithKey(entry.idempotencyKey)).length, 1, 'exactly one task per submit');
      assert.equal((await readFile(outputs[i])).subarray(4, 8).toString('latin1'), 'ftyp');
    }
    assert.deepEqual(
      (await new FileJournal(journalDir).list()).map((e) => e.state),
      ['downloaded', 'downloaded'],
    );
  });
});

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 20));
  }
}
