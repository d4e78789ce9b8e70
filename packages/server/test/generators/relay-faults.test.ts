/**
 * The relay against a real vidgen upstream behind a fault-injecting proxy: rate limits and 5xx
 * while polling, unknown and foreign state words, expired results, channels that are down or
 * refuse (failover), input the upstream refuses (no failover), and links on another origin.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSafeFetch } from '../../src/security/create-safe-fetch.ts';
import { startRelayUpstream, type RelayUpstream } from '../support/relay-upstream.ts';
import { RelayFaultProxy } from '../support/relay-fault-proxy.ts';
import { assertNoLeak, capturingLogger, channel, context, failure, job, relayOf } from '../support/relay-fixtures.ts';

const SUBMIT = /^\/v1\/videos?\/generations$/;
const POLL = { A: /^\/v1\/videos\/[^/]+$/, B: /^\/v1\/video\/generations\/[^/]+$/ };

describe('relay: upstream faults', () => {
  let upstream: RelayUpstream;
  let root: string;
  const proxies: RelayFaultProxy[] = [];
  before(async () => {
    upstream = await startRelayUpstream();
    root = await mkdtemp(join(tmpdir(), 'vidgen-relay-faults-'));
  });
  afterEach(async () => {
    for (const p of proxies.splice(0)) await p.close();
  });
  after(async () => {
    await upstream?.close();
    await rm(root, { recursive: true, force: true });
  });
  const proxy = async (options: { rewriteHost?: boolean } = {}) => {
    const p = await RelayFaultProxy.start(upstream.url, options);
    proxies.push(p);
    return p;
  };

  for (const dialect of ['A', 'B'] as const) {
    it(`family ${dialect}: 429s and 5xx while polling are waited out`, async () => {
      const key = await upstream.newKey();
      const p = await proxy();
      p.fault({
        method: 'GET',
        path: POLL[dialect],
        times: 2,
        action: {
          kind: 'answer',
          status: 429,
          headers: { 'retry-after': '0' },
          body: { error: { code: 'rate_limited' } },
        },
      });
      p.fault({ method: 'GET', path: POLL[dialect], times: 2, action: { kind: 'answer', status: 503 } });
      p.fault({ method: 'GET', path: POLL[dialect], times: 1, action: { kind: 'drop' } });
      const relay = relayOf([channel(dialect, p.url, 'K')], { K: key });
      await relay.generate(job(dialect), (await context(root)).ctx);
      assert.ok(p.seen('GET', POLL[dialect]).length >= 6);
    });
  }

  it('a 429 on submit creates nothing and fails transiently when no other channel is left', async () => {
    const key = await upstream.newKey();
    const p = await proxy();
    p.fault({
      method: 'POST',
      path: SUBMIT,
      action: { kind: 'answer', status: 429, headers: { 'retry-after': '30' } },
    });
    const err = await failure(
      relayOf([channel('B', p.url, 'K')], { K: key }).generate(job('B'), (await context(root)).ctx),
    );
    assert.deepEqual([err.code, err.retryable], ['backend_unavailable', true]);
    assert.match(err.message, /rate limiting/);
    assert.equal((await upstream.tasks(key, 'B')).length, 0);
  });

  it('new-api spellings (lower case, "50%", wrapped in data) are understood', async () => {
    const key = await upstream.newKey();
    const p = await proxy();
    const words: Record<string, string> = { queued: 'submitted', IN_PROGRESS: 'in_progress', SUCCESS: 'succeeded' };
    p.fault({
      method: 'GET',
      path: POLL.B,
      action: {
        kind: 'rewrite',
        body: (t) => ({
          code: 'success',
          data: { ...t, status: words[t.status] ?? t.status, progress: `${t.progress}%` },
        }),
      },
    });
    await relayOf([channel('B', p.url, 'K')], { K: key }).generate(job('B'), (await context(root)).ctx);
  });

  it('a few unknown states are tolerated; past the limit the attempt fails transiently', async () => {
    const key = await upstream.newKey();
    const p = await proxy();
    const relay = relayOf([channel('A', p.url, 'K')], { K: key });
    p.fault({
      method: 'GET',
      path: POLL.A,
      times: 3,
      action: { kind: 'rewrite', status: 200, body: (t) => ({ ...t, status: 'thinking' }) },
    });
    await relay.generate(job('A'), (await context(root)).ctx);
    p.fault({
      method: 'GET',
      path: POLL.A,
      action: { kind: 'rewrite', status: 200, body: (t) => ({ ...t, status: 'thinking' }) },
    });
    const err = await failure(relay.generate(job('A'), (await context(root)).ctx));
    assert.deepEqual([err.code, err.retryable], ['backend_unavailable', true]);
    assert.match(err.message, /a state the relay does not know/);
  });

  it('family A: an expired result fails for good', async () => {
    const key = await upstream.newKey();
    const p = await proxy();
    p.fault({
      method: 'GET',
      path: POLL.A,
      action: {
        kind: 'rewrite',
        body: (t) => (t.status === 'done' ? { request_id: t.request_id, status: 'expired', model: t.model } : t),
      },
    });
    const err = await failure(
      relayOf([channel('A', p.url, 'K')], { K: key }).generate(job('A'), (await context(root)).ctx),
    );
    assert.deepEqual([err.code, err.retryable], ['upstream_result_expired', false]);
  });

  it('family B: content answering 410 fails for good', async () => {
    const key = await upstream.newKey();
    const p = await proxy();
    p.fault({
      method: 'GET',
      path: /\/content$/,
      action: { kind: 'answer', status: 410, body: { error: { code: 'video_expired' } } },
    });
    const err = await failure(
      relayOf([channel('B', p.url, 'K')], { K: key }).generate(job('B'), (await context(root)).ctx),
    );
    assert.deepEqual([err.code, err.retryable], ['upstream_result_expired', false]);
  });

  it('fails over past channels that are down or refuse, by priority, and only creates on the one that accepts', async () => {
    const key = await upstream.newKey();
    const down = await closedPort();
    const [badKey, noChannel, noModel] = [await proxy(), await proxy(), await proxy()];
    noChannel.fault({
      method: 'POST',
      path: SUBMIT,
      action: {
        kind: 'answer',
        status: 503,
        body: { error: { code: 'model_not_found', message: 'no available channel' } },
      },
    });
    const log = capturingLogger();
    const relay = relayOf(
      [
        channel('B', upstream.url, 'GOOD', { name: 'last', priority: 1 }),
        channel('B', `http://127.0.0.1:${down}`, 'GOOD', { name: 'down', priority: 50 }),
        channel('B', badKey.url, 'WRONG', { name: 'bad-key', priority: 40 }),
        channel('B', noChannel.url, 'GOOD', { name: 'no-channel', priority: 30 }),
        channel('B', noModel.url, 'GOOD', { name: 'no-model', priority: 20, models: { 'ours-b-1s': 'not-a-model' } }),
      ],
      { GOOD: key, WRONG: 'not-a-key' },
      { logger: log.logger },
    );
    await relay.generate(job('B'), (await context(root)).ctx);
    assert.deepEqual(
      (await upstream.tasks(key, 'B')).map((t) => t.model),
      ['tiny-b-1s'],
    );
    const refusals = log.lines.filter((l) => l.why).map((l) => [l.channel, l.why]);
    assert.deepEqual(refusals, [
      ['down', 'unreachable'],
      ['bad-key', 'auth'],
      ['no-channel', 'unavailable'],
      ['no-model', 'model'],
    ]);
    const [task] = await upstream.tasks(key, 'B');
    assertNoLeak(log.text(), [upstream.url, badKey.url, noChannel.url, task.task_id, key, 'not-a-key']);
  });

  it('input the upstream refuses (400) fails for good and is not offered to another channel', async () => {
    const key = await upstream.newKey();
    const [first, second] = [await proxy(), await proxy()];
    const relay = relayOf(
      [channel('A', first.url, 'K', { priority: 2 }), channel('A', second.url, 'K', { priority: 1 })],
      { K: key },
    );
    const err = await failure(relay.generate(job('A', { prompt: '   ' }), (await context(root)).ctx));
    assert.deepEqual([err.code, err.retryable], ['invalid_input', false]);
    assert.match(err.message, /upstream code: invalid_prompt/);
    assert.equal(second.requests.length, 0);
  });

  it('a job no channel serves (ratio, duration) fails before anything is sent', async () => {
    const key = await upstream.newKey();
    const p = await proxy();
    const relay = relayOf([channel('A', p.url, 'K', { aspect_ratios: ['16:9'], durations: [1, 2] })], { K: key });
    assert.equal(
      (await failure(relay.generate(job('A', { width: 180, height: 320 }), (await context(root)).ctx))).code,
      'invalid_input',
    );
    assert.equal(
      (await failure(relay.generate(job('A', { duration: 3 }), (await context(root)).ctx))).code,
      'invalid_input',
    );
    assert.equal(p.requests.length, 0);
  });

  it('a link on another origin goes through the SSRF-safe fetcher, which refuses private addresses', async () => {
    const key = await upstream.newKey();
    // The upstream sees its own Host, so its links point at it directly, not at the channel's origin.
    const p = await proxy({ rewriteHost: true });
    await relayOf([channel('A', p.url, 'K')], { K: key }).generate(job('A'), (await context(root)).ctx);
    const strict = createSafeFetch({
      allowPrivate: false,
      timeoutMs: 5000,
      maxBytes: 1 << 26,
      maxRedirects: 3,
      what: 'video',
    });
    const err = await failure(
      relayOf([channel('A', p.url, 'K')], { K: key }, { fetchForeign: strict }).generate(
        job('A'),
        (await context(root)).ctx,
      ),
    );
    assert.deepEqual([err.code, err.retryable], ['upstream_download_failed', false]);
    assert.equal(p.seen('GET', /\/content$/).length, 0, 'the link was never fetched through the channel');
  });
});

/** A port nothing listens on: connections are refused before any byte is sent. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
