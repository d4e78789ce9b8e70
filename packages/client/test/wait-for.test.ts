import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  VidgenClient,
  WaitTimeoutError,
  TaskFailedError,
  ResultExpiredError,
  APIUserAbortError,
  LONG_POLL_HEADER,
  type PollPlan,
  type TaskView,
} from '../src/index.ts';
import { json, startScriptedServer } from './support/scripted-server.ts';

// Obligation 3: a bounded wait that ends on the family's final states and survives hiccups.
describe('waitFor', async () => {
  const server = await startScriptedServer(json(200, {}));
  after(() => server.close());
  const client = new VidgenClient({ baseURL: server.url, apiKey: 'k', backoff: { initialDelayMs: 5, maxDelayMs: 10 } });
  // These cases are about polling: the client knows this server has no task streams (task-stream.test.ts has those).
  client.server.streams = false;
  const a = (status: string, extra: object = {}) =>
    json(
      status === 'pending' ? 202 : 200,
      { request_id: 'r1', status, model: 'vx', progress: status === 'done' ? 100 : 40, ...extra },
      { 'retry-after': '4' },
    );
  const b = (status: string, extra: object = {}) =>
    json(200, { task_id: 't1', status, progress: 50, seconds: '5', model: 'video-v1-5s', ...extra });
  const reset = (...h: Parameters<typeof server.script>) => {
    server.seen.length = 0;
    server.script(...h);
  };

  it('polls family A through 202 answers to done, reporting progress', async () => {
    reset(a('pending'), a('pending'), a('done', { video: { url: 'http://x/v.mp4', duration: 1 } }));
    const views: TaskView[] = [];
    const task = await client.videos.wait('r1', {
      intervalMs: 10,
      longPollSeconds: 0,
      onProgress: (v) => views.push(v),
    });
    assert.equal(task.status, 'done');
    assert.deepEqual(
      views.map((v) => v.phase),
      ['pending', 'pending', 'succeeded'],
    );
    assert.equal(views[0].progress, 40);
    assert.equal(server.seen[0].url, '/v1/videos/r1');
  });

  it('asks the server to hold polls with ?wait= when long-polling', async () => {
    reset(b('IN_PROGRESS'), b('SUCCESS', { result_url: '/v1/videos/t1/content' }));
    await client.videoGenerations.wait('t1', { intervalMs: 10, longPollSeconds: 90 });
    assert.equal(server.seen[0].url, '/v1/video/generations/t1?wait=60', 'capped at 60 s');
  });

  it('keeps long-polling through quick answers while the server declares that it holds', async () => {
    const held = (status: string) =>
      json(
        200,
        { task_id: 't1', status, progress: 50, seconds: '5', model: 'm' },
        { [LONG_POLL_HEADER]: '30000', 'retry-after': '15' },
      );
    reset(held('queued'), held('IN_PROGRESS'), held('IN_PROGRESS'), held('IN_PROGRESS'), held('SUCCESS'));
    const plans: PollPlan[] = [];
    await client.videoGenerations.wait('t1', { onProgress: (_v, _t, plan) => plans.push(plan) });
    assert.equal(plans.length, 5);
    assert.ok(
      plans.every((p) => p.longPoll),
      JSON.stringify(plans),
    );
    assert.ok(
      plans.slice(0, -1).every((p) => p.nextPollInMs <= 250),
      'no fall-back to the 15 s interval',
    );
    assert.ok(server.seen.every((r) => /[?&]wait=30\b/.test(r.url)));
  });

  it('falls back to interval polling after quick answers without the header', async () => {
    reset(b('IN_PROGRESS'), b('IN_PROGRESS'), b('IN_PROGRESS'), b('SUCCESS'));
    const plans: PollPlan[] = [];
    await client.videoGenerations.wait('t1', { intervalMs: 10, onProgress: (_v, _t, plan) => plans.push(plan) });
    assert.deepEqual(
      plans.map((p) => p.longPoll),
      [true, false, false, false],
      'one early probe, then the interval',
    );
  });

  it('uses the server’s Retry-After hint when no interval is set', async () => {
    const hinted = json(
      200,
      { task_id: 't1', status: 'queued', progress: 0, seconds: '5', model: 'm' },
      { 'retry-after': '0.3' },
    );
    reset(hinted, b('SUCCESS'));
    const started = Date.now();
    await client.videoGenerations.wait('t1', { longPollSeconds: 0 });
    assert.ok(Date.now() - started >= 280, `waited ${Date.now() - started} ms`);
  });

  it('raises TaskFailedError with the server’s code and message', async () => {
    reset(b('FAILURE', { error: { code: 'image_unreachable', message: 'The image could not be fetched.' } }));
    const err = await client.videoGenerations.wait('t1', { intervalMs: 10 }).catch((e) => e);
    assert.ok(err instanceof TaskFailedError);
    assert.equal(err.taskId, 't1');
    assert.equal(err.code, 'image_unreachable');
    assert.equal(err.serverMessage, 'The image could not be fetched.');
  });

  it('raises ResultExpiredError for family A expired and family B expired SUCCESS', async () => {
    reset(a('expired'));
    await assert.rejects(client.videos.wait('r1', { intervalMs: 10 }), ResultExpiredError);
    reset(b('SUCCESS', { expired: true }));
    await assert.rejects(client.videoGenerations.wait('t1', { intervalMs: 10 }), ResultExpiredError);
  });

  it('keeps waiting through transient errors', async () => {
    reset(
      b('queued'),
      json(503, { error: { message: 'busy', type: 'server_error', code: 'x', param: null } }),
      b('SUCCESS'),
    );
    const task = await client.videoGenerations.wait('t1', { intervalMs: 10, longPollSeconds: 0 });
    assert.equal(task.status, 'SUCCESS');
  });

  it('stops at the maximum waiting time with the task id kept', async () => {
    reset(b('IN_PROGRESS'));
    const err = await client.videoGenerations
      .wait('t1', { intervalMs: 20, maxWaitMs: 150, longPollSeconds: 0 })
      .catch((e) => e);
    assert.ok(err instanceof WaitTimeoutError, String(err));
    assert.equal(err.taskId, 't1');
    assert.equal(err.lastStatus, 'IN_PROGRESS');
  });

  it('stops when the AbortSignal fires', async () => {
    reset(b('IN_PROGRESS'));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await assert.rejects(
      client.videoGenerations.wait('t1', { intervalMs: 5_000, signal: controller.signal, longPollSeconds: 0 }),
      APIUserAbortError,
    );
  });
});
