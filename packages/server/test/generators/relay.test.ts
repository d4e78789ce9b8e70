/**
 * The relay backend against a second, real vidgen server on loopback as its upstream, in both
 * families: the generator contract, the checkpoint (upstream id stored before waiting, re-attach
 * after a crash without paying again), cancel, and what the caller never sees.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatorContract } from '../../src/generators/generator.contract.ts';
import { memoryCheckpoint, type Generator } from '../../src/generators/generator.ts';
import { resolveFfmpegBinaries } from '../../src/media/ffmpeg-binaries.ts';
import { verifyVideo } from '../../src/media/video-probe.ts';
import { startRelayUpstream, type RelayUpstream } from '../support/relay-upstream.ts';
import { RelayFaultProxy } from '../support/relay-fault-proxy.ts';
import { assertNoLeak, channel, context, failure, job, relayOf } from '../support/relay-fixtures.ts';

const bins = resolveFfmpegBinaries({});

for (const dialect of ['A', 'B'] as const) {
  generatorContract(
    `relay, family ${dialect} (a vidgen upstream on loopback)`,
    async () => {
      const upstream = await startRelayUpstream({ separateProcess: true });
      const relay = relayOf([channel(dialect, upstream.url, 'UPSTREAM_KEY')], {
        UPSTREAM_KEY: await upstream.newKey(),
      });
      // The engine names our catalog model; family B's models each fix a duration, so the model follows it.
      const generator: Generator = {
        kinds: relay.kinds,
        generate: (j, ctx) =>
          relay.generate({ ...j, model: dialect === 'A' ? 'ours-a' : `ours-b-${j.duration}s` }, ctx),
      };
      return { generator, ffprobe: bins.ffprobe, cleanup: () => upstream.close() };
    },
    { deterministic: false },
  );
}

describe('relay backend', () => {
  let upstream: RelayUpstream;
  let root: string;
  before(async () => {
    upstream = await startRelayUpstream();
    root = await mkdtemp(join(tmpdir(), 'vidgen-relay-'));
  });
  after(async () => {
    await upstream?.close();
    await rm(root, { recursive: true, force: true });
  });

  for (const dialect of ['A', 'B'] as const) {
    it(`family ${dialect}: stores channel and upstream id before the first poll, then brings back a verified video`, async () => {
      const key = await upstream.newKey();
      const proxy = await RelayFaultProxy.start(upstream.url);
      try {
        const relay = relayOf([channel(dialect, proxy.url, 'K')], { K: key });
        const r = await context(root);
        const savedAtFirstPoll: unknown[] = [];
        const poll = dialect === 'A' ? /^\/v1\/videos\/[^/]+$/ : /^\/v1\/video\/generations\/[^/]+$/;
        proxy.fault({
          method: 'GET',
          path: poll,
          times: 1,
          action: { kind: 'rewrite', body: (json) => (savedAtFirstPoll.push(...r.saves), json) },
        });
        const j = job(dialect, { width: 180, height: 320, duration: 2 });
        const out = await relay.generate(j, r.ctx);
        await verifyVideo(bins.ffprobe, out.path, { width: 180, height: 320, durationSeconds: 2, fps: 24 });
        const [task] = await upstream.tasks(key, dialect);
        const id = dialect === 'A' ? task.request_id : task.task_id;
        const last = savedAtFirstPoll.at(-1) as Record<string, unknown>;
        assert.equal(last.upstreamId, id, 'the upstream id was saved before waiting');
        assert.equal(typeof last.channel, 'string');
        assert.ok(!JSON.stringify(r.saves).includes(proxy.url), 'the checkpoint names the channel by hash, not URL');
        assert.equal(r.progress.at(-1), 1);
        assert.equal(proxy.seen('POST', /generations$/).length, 1);
        assert.ok(
          proxy.seen('GET', poll).every((q) => q.path.includes('wait=25')),
          'polls long-poll a vidgen upstream',
        );
      } finally {
        await proxy.close();
      }
    });
  }

  it('re-attaches after a crash: a later attempt follows the same upstream task and sends no second create', async () => {
    const key = await upstream.newKey();
    const proxy = await RelayFaultProxy.start(upstream.url);
    try {
      const relay = relayOf([channel('B', proxy.url, 'K')], { K: key });
      const checkpoint = memoryCheckpoint();
      const j = job('B', { duration: 15, width: 1280, height: 720 });
      // The first attempt is handed back at shutdown while the upstream renders.
      const first = new AbortController();
      const r1 = await context(root, { signal: first.signal, checkpoint });
      const running = relay.generate(j, { ...r1.ctx, onProgress: (p) => p > 0.03 && first.abort('handover') });
      setTimeout(() => first.abort('handover'), 1500);
      assert.equal((await failure(running)).code, 'canceled');
      assert.equal(proxy.seen('POST', /cancel$/).length, 0, 'a handed-back task is not canceled upstream');
      const r2 = await context(root, { checkpoint });
      await relay.generate({ ...j, attempt: 2 }, r2.ctx);
      assert.equal(proxy.seen('POST', /generations$/).length, 1, 'one create in all');
      assert.equal((await upstream.tasks(key, 'B')).length, 1);
    } finally {
      await proxy.close();
    }
  });

  for (const dialect of ['A', 'B'] as const) {
    it(`family ${dialect}: a canceled task is canceled upstream too`, async () => {
      const key = await upstream.newKey();
      const relay = relayOf([channel(dialect, upstream.url, 'K')], { K: key });
      const controller = new AbortController();
      const r = await context(root, { signal: controller.signal });
      const running = relay.generate(job(dialect, { duration: 15, width: 1280, height: 720 }), {
        ...r.ctx,
        onProgress: (p) => p >= 0.03 && controller.abort('canceled'),
      });
      assert.equal((await failure(running)).code, 'canceled');
      const [task] = await upstream.tasks(key, dialect);
      assert.equal(task.status, dialect === 'A' ? 'failed' : 'FAILURE');
      assert.equal(task.error?.code, 'canceled');
    });
  }

  for (const dialect of ['A', 'B'] as const) {
    it(`family ${dialect}: an attempt stopped at its deadline cancels the upstream task, and the deadline is final`, async () => {
      const key = await upstream.newKey();
      const relay = relayOf([channel(dialect, upstream.url, 'K')], { K: key });
      const controller = new AbortController();
      const checkpoint = memoryCheckpoint();
      const r = await context(root, { signal: controller.signal, checkpoint });
      const j = job(dialect, { duration: 15, width: 1280, height: 720 });
      const running = relay.generate(j, { ...r.ctx, onProgress: (p) => p >= 0.03 && controller.abort('deadline') });
      // docs/relays.md §3: not retried, since a retry could only follow a canceled job or pay again.
      const err = await failure(running);
      assert.deepEqual([err.code, err.retryable], ['deadline_exceeded', false]);
      assert.match(err.message, /canceled and is not retried/);
      const [task] = await upstream.tasks(key, dialect);
      assert.equal(task.status, dialect === 'A' ? 'failed' : 'FAILURE');
      assert.equal(task.error?.code, 'canceled');

      // Should another attempt run anyway (a crash before the failure was recorded), it ends the same
      // way at once: it neither follows the canceled job nor sends a new one.
      const again = await failure(relay.generate({ ...j, attempt: 2 }, (await context(root, { checkpoint })).ctx));
      assert.deepEqual([again.code, again.retryable], ['deadline_exceeded', false]);
      assert.equal((await upstream.tasks(key, dialect)).length, 1, 'no second upstream job');
    });
  }

  it('at a deadline, an upstream without cancel (xAI, new-api) keeps its job, and the retry follows it', async () => {
    const key = await upstream.newKey();
    // A vidgen upstream told not to be canceled plays an upstream that cannot be.
    const relay = relayOf([channel('A', upstream.url, 'K', { cancel: false })], { K: key });
    const controller = new AbortController();
    const checkpoint = memoryCheckpoint();
    const j = job('A', { duration: 2 });
    const first = relay.generate(j, {
      ...(await context(root, { signal: controller.signal, checkpoint })).ctx,
      onProgress: (p) => p >= 0.03 && controller.abort('deadline'),
    });
    // The engine records a retryable deadline_exceeded for a plain `canceled` at its deadline.
    assert.equal((await failure(first)).code, 'canceled');
    const out = await relay.generate({ ...j, attempt: 2 }, (await context(root, { checkpoint })).ctx);
    await verifyVideo(bins.ffprobe, out.path, {
      width: j.width,
      height: j.height,
      durationSeconds: j.duration,
      fps: 24,
    });
    assert.equal((await upstream.tasks(key, 'A')).length, 1, 'the retry followed the same upstream job');
  });

  it('keeps upstream addresses, ids and keys out of failures', async () => {
    const key = await upstream.newKey();
    const relay = relayOf([channel('A', upstream.url, 'K')], { K: key });
    const controller = new AbortController();
    const r = await context(root, { signal: controller.signal });
    // Someone cancels the task upstream: the relay reports a failure, in its own words.
    const running = relay.generate(job('A', { duration: 15, width: 1280, height: 720 }), {
      ...r.ctx,
      onProgress: (p) => {
        if (p < 0.03 || controller.signal.aborted) return;
        void upstream.tasks(key, 'A').then(([t]) =>
          fetch(`${upstream.url}/v1/videos/${t.request_id}/cancel`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}` },
          }),
        );
      },
    });
    const err = await failure(running);
    assert.deepEqual([err.code, err.retryable], ['upstream_failed', false]);
    assert.match(err.message, /upstream code: canceled/);
    const [task] = await upstream.tasks(key, 'A');
    assertNoLeak(`${err.message} ${JSON.stringify(err)}`, [
      upstream.url,
      new URL(upstream.url).host,
      task.request_id,
      key,
    ]);
  });
});
