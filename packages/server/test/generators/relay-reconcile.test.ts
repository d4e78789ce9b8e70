/**
 * invariant 2, docs/architecture.md against a real vidgen upstream behind a fault-injecting proxy: a submit whose
 * answer is lost is reconciled, never blindly sent again, and the upstream ends up with exactly
 * one task (counted in its own listing).
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryCheckpoint } from '../../src/generators/generator.ts';
import { startRelayUpstream, type RelayUpstream } from '../support/relay-upstream.ts';
import { RelayFaultProxy } from '../support/relay-fault-proxy.ts';
import { channel, context, failure, job, relayOf, type RawChannel } from '../support/relay-fixtures.ts';

const SUBMIT = /^\/v1\/videos?\/generations$/;
const LISTING = /^\/v1\/(videos|video\/generations)$/;

describe('relay: ambiguous submits are reconciled, never paid twice', () => {
  let upstream: RelayUpstream;
  let root: string;
  let proxy: RelayFaultProxy;
  before(async () => {
    upstream = await startRelayUpstream();
    root = await mkdtemp(join(tmpdir(), 'vidgen-relay-reconcile-'));
  });
  afterEach(() => proxy?.close());
  after(async () => {
    await upstream?.close();
    await rm(root, { recursive: true, force: true });
  });

  /** A fresh account behind a fresh proxy, so counts are this test's own. */
  const setup = async (dialect: 'A' | 'B', extra: RawChannel = {}) => {
    const key = await upstream.newKey();
    proxy = await RelayFaultProxy.start(upstream.url);
    const relay = relayOf([channel(dialect, proxy.url, 'K', extra)], { K: key });
    const tasks = () => upstream.tasks(key, dialect);
    return { relay, tasks };
  };

  for (const dialect of ['A', 'B'] as const) {
    it(`family ${dialect}: the upstream created the task but the answer was cut: found by key in the listing, one task`, async () => {
      const { relay, tasks } = await setup(dialect);
      proxy.fault({ method: 'POST', path: SUBMIT, times: 1, action: { kind: 'forward-then-drop' } });
      const r = await context(root);
      await relay.generate(job(dialect), r.ctx);
      assert.equal((await tasks()).length, 1);
      assert.equal(proxy.seen('POST', SUBMIT).length, 1, 'the create was not sent again');
      assert.ok(proxy.seen('GET', LISTING).length >= 1, 'the listing was asked');
    });

    it(`family ${dialect}: a 502 after the upstream acted is not taken as a refusal: one task`, async () => {
      const { relay, tasks } = await setup(dialect);
      proxy.fault({
        method: 'POST',
        path: SUBMIT,
        times: 1,
        action: { kind: 'forward-then-answer', status: 502, body: { error: { message: 'bad gateway' } } },
      });
      await relay.generate(job(dialect), (await context(root)).ctx);
      assert.equal((await tasks()).length, 1);
      assert.equal(proxy.seen('POST', SUBMIT).length, 1);
    });
  }

  it('an upstream that replays by Idempotency-Key is simply asked again with the same key', async () => {
    const { relay, tasks } = await setup('B', { replays_idempotency_key: true });
    proxy.fault({ method: 'POST', path: SUBMIT, times: 1, action: { kind: 'forward-then-drop' } });
    await relay.generate(job('B'), (await context(root)).ctx);
    assert.equal((await tasks()).length, 1, 'the second send was replayed, not created');
    assert.equal(proxy.seen('POST', SUBMIT).length, 2);
    assert.equal(proxy.seen('GET', LISTING).length, 0, 'no listing needed');
  });

  it('a 500 that never reached the upstream: the listing proves absence, so the create is sent again', async () => {
    const { relay, tasks } = await setup('A');
    proxy.fault({ method: 'POST', path: SUBMIT, times: 1, action: { kind: 'answer', status: 500 } });
    await relay.generate(job('A'), (await context(root)).ctx);
    assert.equal((await tasks()).length, 1);
    assert.equal(proxy.seen('POST', SUBMIT).length, 2);
  });

  it('when the lookup fails too, the attempt fails transiently without resending; the next attempt looks up first', async () => {
    const { relay, tasks } = await setup('B');
    proxy.fault({ method: 'POST', path: SUBMIT, times: 1, action: { kind: 'forward-then-drop' } });
    proxy.fault({ method: 'GET', path: LISTING, action: { kind: 'answer', status: 503 } });
    const checkpoint = memoryCheckpoint();
    const j = job('B');
    const first = await failure(relay.generate(j, (await context(root, { checkpoint })).ctx));
    assert.deepEqual([first.code, first.retryable], ['upstream_submit_unconfirmed', true]);
    const saved = (await checkpoint.load()) as Record<string, unknown>;
    assert.ok(saved.idempotencyKey && !saved.upstreamId, 'the checkpoint remembers "sent, outcome unknown"');
    assert.equal(proxy.seen('POST', SUBMIT).length, 1);

    proxy.clearFaults();
    await relay.generate({ ...j, attempt: 2 }, (await context(root, { checkpoint })).ctx);
    assert.equal(proxy.seen('POST', SUBMIT).length, 1, 'the later attempt reconciled instead of submitting');
    assert.equal((await tasks()).length, 1);
  });

  it('a channel with no way to look a submit up fails for good rather than risk a second charge', async () => {
    const { relay, tasks } = await setup('A', { lookup_by_idempotency_key: false });
    proxy.fault({ method: 'POST', path: SUBMIT, times: 1, action: { kind: 'forward-then-drop' } });
    const err = await failure(relay.generate(job('A'), (await context(root)).ctx));
    assert.deepEqual([err.code, err.retryable], ['upstream_submit_unconfirmed', false]);
    assert.equal(proxy.seen('POST', SUBMIT).length, 1);
    assert.equal((await tasks()).length, 1);
  });

  it('a create still in flight upstream (409) is waited for, then sent again with the same key', async () => {
    const { relay, tasks } = await setup('A');
    proxy.fault({
      method: 'POST',
      path: SUBMIT,
      times: 2,
      action: {
        kind: 'answer',
        status: 409,
        body: { error: { code: 'idempotency_in_flight', message: 'still being processed' } },
      },
    });
    await relay.generate(job('A'), (await context(root)).ctx);
    assert.equal(proxy.seen('POST', SUBMIT).length, 3);
    assert.equal((await tasks()).length, 1);
  });
});
