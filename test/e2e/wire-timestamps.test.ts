import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { api, pollUntil } from './support/http.ts';
import { startEconomicsService, TICKS_PER_SECOND, type EconomicsService } from './support/economics.ts';
import { startWebhookReceiver } from './support/webhook-receiver.ts';

const DOCUMENT = new URL('../../docs/openapi.json', import.meta.url);
/** Unix seconds of 2001-09-09 and of the year 5138: a time in milliseconds is far above the second. */
const SECONDS = [1e9, 1e11];
/** Named in the document but made only by a relay channel's open breaker, which this test has none of. */
const NOT_EXERCISED = new Set(['opened_at']);
/**
 * Set only when a batch fails (its input file gone before it was read) or outlives its 24 h window:
 * batches-rules.test.ts checks a failed one's `failed_at` in seconds, batches-lifecycle.test.ts
 * makes an expired one on an injected clock.
 */
const BATCH_ENDINGS_NOT_MADE = new Set(['failed_at', 'expired_at']);

/** Every `*_at` property of the document, with its schema. */
function documentedTimes(document: unknown): Map<string, unknown[]> {
  const found = new Map<string, unknown[]>();
  const walk = (node: unknown) => {
    if (Array.isArray(node)) {
      for (const n of node) walk(n);
      return;
    }
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'properties' && value && typeof value === 'object')
        for (const [name, schema] of Object.entries(value))
          if (name.endsWith('_at')) found.set(name, [...(found.get(name) ?? []), schema]);
      walk(value);
    }
  };
  walk(document);
  return found;
}

/** Every `*_at` value in an answer body, by name. */
function wireTimes(body: unknown, into: Map<string, number[]>): void {
  if (Array.isArray(body)) {
    for (const b of body) wireTimes(b, into);
    return;
  }
  if (!body || typeof body !== 'object') return;
  for (const [key, value] of Object.entries(body)) {
    if (key.endsWith('_at') && typeof value === 'number') into.set(key, [...(into.get(key) ?? []), value]);
    else wireTimes(value, into);
  }
}

describe('every timestamp on the wire is in Unix seconds', () => {
  let svc: EconomicsService;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  before(async () => {
    svc = await startEconomicsService();
    // The first delivery is taken; later ones fail, so they wait for a retry (`next_attempt_at`).
    receiver = await startWebhookReceiver((_request, index) => (index === 0 ? 200 : 500));
  });
  after(async () => {
    await svc?.close();
    await receiver?.close();
  });

  it('the document types each `*_at` as an integer, and every answer carrying one holds seconds', async () => {
    const documented = documentedTimes(JSON.parse(await readFile(DOCUMENT, 'utf8')));
    assert.ok(documented.size >= 5, [...documented.keys()].join(', '));
    for (const [name, schemas] of documented) {
      for (const schema of schemas) {
        const types = JSON.stringify(schema);
        assert.ok(/"integer"/.test(types) && !/"number"/.test(types), `${name}: ${types}`);
      }
    }

    const key = await svc.account('clock', { credits_usd_ticks: 200 * TICKS_PER_SECOND });
    const client = api(svc.url, key);
    const seen = new Map<string, number[]>();
    const read = async (answer: Promise<{ status: number; body: unknown }>) => {
      const { status, body } = await answer;
      assert.ok(status < 300, `${status} ${JSON.stringify(body)}`);
      wireTimes(body, seen);
      return body as any;
    };
    const hook = await read(client.post('/v1/webhooks', { url: receiver.url }));
    await read(client.post(`/v1/webhooks/${hook.id}/rotate-secret`));
    const task = await read(client.post('/v1/video/generations', { model: 'tiny-1s', prompt: 'what time is it' }));
    await pollUntil(
      () => client.get(`/v1/video/generations/${task.task_id}`),
      (a) => a.body.status === 'SUCCESS',
    );
    // The OpenAI Videos dialect's own times: completed_at and expires_at of a finished video; and the
    // file kept for `storage_options`, with its expiry and its public link's.
    const video = await read(
      client.post('/v1/videos', {
        model: 'tiny-o',
        prompt: 'a clock',
        seconds: '1',
        size: '256x144',
        storage_options: { filename: 'clock.mp4', expires_after: 3600, public_url: true },
      }),
    );
    await pollUntil(
      () => client.get(`/v1/videos/${video.id}`),
      (a) => a.body.status === 'completed',
    );
    await read(client.get(`/v1/videos/${video.id}`));
    await receiver.until((all) => all.length > 0);
    const deliveries = () => client.get(`/v1/webhooks/${hook.id}/deliveries`);
    await pollUntil(deliveries, (a) => a.body.data?.some((d: any) => d.delivered_at));
    await read(client.post(`/v1/webhooks/${hook.id}/test`));
    await pollUntil(deliveries, (a) => a.body.data?.some((d: any) => !d.delivered_at && d.next_attempt_at));
    for (const path of [
      `/v1/video/generations/${task.task_id}`,
      '/v1/video/generations',
      '/v1/account',
      `/v1/webhooks/${hook.id}`,
      `/v1/webhooks/${hook.id}/deliveries`,
    ])
      await read(client.get(path));
    for (const path of [
      '/admin/v1/accounts/clock',
      '/admin/v1/accounts/clock/keys',
      '/admin/v1/ledger?account=clock',
      '/admin/v1/webhooks',
      `/admin/v1/webhooks/${hook.id}/deliveries`,
    ])
      await read(svc.admin.get(path));
    // Two long tasks on one worker: one waits, and the overview names when it was submitted.
    const long = [];
    for (let i = 0; i < 2; i++)
      long.push(await read(client.post('/v1/video/generations', { model: 'tiny-long', prompt: `long ${i}` })));
    await read(svc.admin.get('/admin/v1/overview'));
    await read(svc.admin.get(`/admin/v1/tasks/${task.task_id}`));
    for (const t of long) await svc.admin.post(`/admin/v1/tasks/${t.task_id}/cancel`);
    const key2 = await read(svc.admin.post('/admin/v1/accounts/clock/keys'));
    // A monthly quota says when it starts over (`resets_at`).
    await read(
      svc.admin.call('PATCH', `/admin/v1/accounts/clock/keys/${key2.id}`, { quota: { max_tasks: 5, period: 'month' } }),
    );
    await read(svc.admin.delete(`/admin/v1/accounts/clock/keys/${key2.id}`));
    await read(svc.admin.get('/admin/v1/accounts/clock/keys'));

    // A batch's times: one that completes (in progress, finalizing, completed), one cancelled at once.
    const batchOf = async (model: string) => {
      const form = new FormData();
      form.append('purpose', 'batch');
      const line = { custom_id: 'one', method: 'POST', url: '/v1/video/generations', body: { model, prompt: 'batch' } };
      form.append('file', new Blob([JSON.stringify(line)]), 'lines.jsonl');
      const upload = await fetch(`${svc.url}/v1/files`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: form,
      });
      const file = await upload.json();
      assert.equal(upload.status, 200, JSON.stringify(file));
      const body = { input_file_id: file.id, endpoint: '/v1/video/generations', completion_window: '24h' };
      return read(client.post('/v1/batches', body));
    };
    const ended = (id: string) =>
      pollUntil(
        () => client.get(`/v1/batches/${id}`),
        (a) => ['completed', 'failed', 'expired', 'cancelled'].includes(a.body.status),
      );
    const done = await batchOf('tiny-1s');
    assert.equal((await read(ended(done.id))).status, 'completed');
    const dropped = await batchOf('tiny-long');
    await read(client.post(`/v1/batches/${dropped.id}/cancel`));
    assert.equal((await read(ended(dropped.id))).status, 'cancelled');

    for (const [name, values] of seen)
      for (const value of values)
        assert.ok(value >= SECONDS[0] && value < SECONDS[1], `${name} = ${value} is not in Unix seconds`);
    const missing = [...documented.keys()].filter(
      (n) => !seen.has(n) && !NOT_EXERCISED.has(n) && !BATCH_ENDINGS_NOT_MADE.has(n),
    );
    assert.deepEqual(missing, [], `documented but never seen on the wire: ${missing.join(', ')}`);
  });
});
