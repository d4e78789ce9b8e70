/**
 * Channels that look after themselves, with their state in a real database (SQLite, and
 * PostgreSQL where one runs): weights among equal priorities, the circuit breaker shared by all
 * processes, per-channel limits, runtime overrides and their /metrics gauges. The relays run
 * against new-api stand-ins on loopback; each RelayGenerator stands for one worker process.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import { openSqlDatabase, type SqlDatabase } from '../../src/store/sql/database.ts';
import { SqlChannelHealth } from '../../src/generators/relay/sql-channel-health.ts';
import { createRelayBackends } from '../../src/generators/relay/relay-backends.ts';
import { orderChannels } from '../../src/generators/relay/relay-request.ts';
import { parseRelayBackend } from '../../src/generators/relay/relay-config.ts';
import { registerRelayChannelMetrics } from '../../src/generators/relay/relay-channel-metrics.ts';
import type { RelayGenerator } from '../../src/generators/relay/relay-generator.ts';
import { NewApiStandin } from '../support/newapi-standin.ts';
import { forEachDatabase } from '../support/databases.ts';
import { context, FAST_TIMINGS, job, testFetchForeign } from '../support/relay-fixtures.ts';

const KEY = 'sk-newapi-channels';
const env = { NEWAPI_KEY: KEY };
const small = () => job('B', { model: 'ours', width: 320, height: 180, duration: 1 });
const channelAt = (name: string, url: string, extra: Record<string, unknown> = {}) => ({
  name,
  dialect: 'B',
  base_url: url,
  api_key_env: 'NEWAPI_KEY',
  models: { ours: 'video-v1' },
  poll_interval_seconds: 0.02,
  ...extra,
});

describe('relay channel order (weights)', () => {
  // Fixed ids and URLs make the draw deterministic: this is exact, never flaky.
  it('three channels weighted 1:1:2 take first place in proportion over 400 tasks, the same for every attempt of a task', () => {
    const config = parseRelayBackend(
      {
        channels: ['a', 'b', 'c'].map((n, i) => channelAt(n, `http://10.0.0.${i + 1}`, { weight: n === 'c' ? 2 : 1 })),
      },
      env,
    );
    const first: Record<string, number> = { a: 0, b: 0, c: 0 };
    for (let i = 0; i < 400; i++) {
      const id = `task-${i}`;
      const order = orderChannels(config.channels, id);
      assert.deepEqual(
        order.map((c) => c.name),
        orderChannels(config.channels, id).map((c) => c.name),
        'stable per task',
      );
      first[order[0].name]++;
    }
    for (const [name, share] of Object.entries({ a: 100, b: 100, c: 200 }))
      assert.ok(Math.abs(first[name] - share) <= share * 0.1, `${name}: ${first[name]} of 400`);
  });
});

forEachDatabase('relay channels with shared state', (testDb) => {
  let database: SqlDatabase;
  let health: SqlChannelHealth;
  let root: string;
  const standins: NewApiStandin[] = [];
  before(async () => {
    database = await openSqlDatabase(testDb.location);
    health = new SqlChannelHealth(database.db);
    root = await mkdtemp(join(tmpdir(), 'vidgen-relay-channels-'));
  });
  after(async () => {
    for (const s of standins) await s.close().catch(() => undefined);
    await database?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });
  const start = async (port?: number) => {
    const s = await NewApiStandin.start({ key: KEY, models: ['video-v1'], pendingPolls: 0, port });
    standins.push(s);
    return s;
  };
  /** Two generators over one backends entry: two worker processes sharing the database. */
  const processes = (backend: Record<string, unknown>) =>
    [1, 2].map(() => {
      const built = createRelayBackends(
        { backends: { relay: { type: 'relay', request_timeout_seconds: 5, ...backend } } },
        env,
        {
          foreignFetch: () => testFetchForeign,
          timings: { ...FAST_TIMINGS, channelWaitMs: 20 },
          health,
        },
      );
      return { relay: built.generators.relay as RelayGenerator, channels: built.channels };
    });
  const runMany = async (relays: RelayGenerator[], count: number, parallel = 8) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: parallel }, async (_, lane) => {
        while (next < count) {
          next++;
          await relays[lane % relays.length].generate(small(), (await context(root)).ctx);
        }
      }),
    );
  };

  // The draw depends on the stand-ins' ports, so here it is random: each share is checked within
  // ±10 % of all 400 tasks (over 4 standard deviations; exact proportions are checked above).
  it('three channels weighted 1:1:2 share 400 real tasks within ±10 %', async () => {
    const [a, b, c] = [await start(), await start(), await start()];
    const relays = processes({
      channels: [channelAt('a', a.url), channelAt('b', b.url), channelAt('c', c.url, { weight: 2 })],
    }).map((p) => p.relay);
    await runMany(relays, 400);
    const counts = [a, b, c].map((s) => s.tasks.length);
    assert.equal(
      counts.reduce((x, y) => x + y),
      400,
      'one upstream job per task',
    );
    for (const [n, share] of [
      [counts[0], 100],
      [counts[1], 100],
      [counts[2], 200],
    ])
      assert.ok(Math.abs(n - share) <= 40, `shares ${counts.join(':')}`);
  });

  it('a dead channel opens its breaker within the configured failures, the others take its share, and it closes when it returns', async () => {
    const [a, b, doomed] = [await start(), await start(), await start()];
    const port = Number(new URL(doomed.url).port);
    const procs = processes({
      health: { failures: 3, window_seconds: 600, cooldown_seconds: 0.2 },
      channels: [channelAt('a', a.url), channelAt('b', b.url), channelAt('doomed', doomed.url, { weight: 4 })],
    });
    const relays = procs.map((p) => p.relay);
    await doomed.close();
    await runMany(relays, 60, 1);
    const status = await procs[0].channels.status();
    const dead = status.find((s) => s.name === 'doomed')!;
    assert.equal(dead.state, 'open');
    assert.equal(a.tasks.length + b.tasks.length, 60, 'every task succeeded on the others');
    const registry = new Registry();
    registerRelayChannelMetrics(registry, procs[1].channels);
    assert.match(
      await registry.metrics(),
      /vidgen_relay_channel_state\{backend="relay",channel="doomed",state="open"\} 1/,
    );
    // It comes back at its address; after the cool-down one task probes it and the breaker closes.
    const revived = await start(port);
    for (
      let i = 0;
      i < 200 && (await procs[1].channels.status()).find((s) => s.name === 'doomed')!.state !== 'closed';
      i++
    )
      await runMany(relays, 1, 1);
    assert.equal((await procs[0].channels.status()).find((s) => s.name === 'doomed')!.state, 'closed');
    assert.ok(revived.tasks.length >= 1, 'the revived channel took the probe');
  });

  it('a channel at its concurrency limit is skipped, not failed: the task waits for a free one, across processes', async () => {
    const only = await start();
    const relays = processes({ channels: [channelAt('only', only.url, { max_concurrent: 1 })] }).map((p) => p.relay);
    await runMany(relays, 4, 4);
    assert.equal(only.tasks.length, 4);
    // With one slot, each task's video was fetched before the next create went out.
    const order = only.requests
      .filter((q) => q.method === 'POST' || q.path.endsWith('/content'))
      .map((q) => (q.method === 'POST' ? 'create' : 'fetch'));
    const firstFetches = order.filter((x, i) => x === 'fetch' && order[i - 1] === 'create').length;
    assert.equal(firstFetches, 4, order.join(' '));
  });

  it('requests per minute are counted across processes; slots lapse with their hold', async () => {
    const id = `rpm-${randomUUID()}`;
    const now = 1_000_000;
    assert.equal(await health.acquire(id, 't1', { maxRpm: 2 }, now + 1000, now), true);
    assert.equal(await health.acquire(id, 't2', { maxRpm: 2 }, now + 1000, now + 1), true);
    assert.equal(await health.acquire(id, 't3', { maxRpm: 2 }, now + 1000, now + 2), false);
    assert.equal(
      await health.acquire(id, 't3', { maxRpm: 2 }, now + 90_000, now + 60_001),
      true,
      'the minute has passed',
    );
    assert.equal(
      await health.acquire(id, 't4', { maxConcurrent: 1 }, now + 90_000, now + 60_002),
      false,
      't3 holds the slot',
    );
    assert.equal(
      await health.acquire(id, 't4', { maxConcurrent: 1 }, now + 200_000, now + 90_001),
      true,
      "t3's hold lapsed",
    );
  });

  it('the operator disables a channel or changes its weight at runtime; the file stays the list', async () => {
    const [a, b] = [await start(), await start()];
    const [p1, p2] = processes({ channels: [channelAt('a', a.url), channelAt('b', b.url)] });
    assert.equal(await p1.channels.configure('relay', 'b', { enabled: false, weight: 3 }), true);
    assert.equal(await p1.channels.configure('relay', 'nope', { enabled: false }), false);
    await runMany([p2.relay], 10, 2);
    assert.deepEqual([a.tasks.length, b.tasks.length], [10, 0]);
    const bStatus = (await p2.channels.status()).find((s) => s.name === 'b')!;
    assert.deepEqual([bStatus.enabled, bStatus.weight], [false, 3]);
    await p2.channels.configure('relay', 'b', { enabled: null, weight: null });
    assert.deepEqual((await p1.channels.status()).find((s) => s.name === 'b')!.enabled, true);
  });
});
