import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from './support/service.ts';
import { api, pollUntil } from './support/http.ts';

// Polls of finished tasks are answered from memory, serialized once when the answer holds no
// signed link (api/task-routes.ts). What must not be remembered: a link is signed for the key
// that asks, and its expiry moves with the clock.
describe('poll answers of finished tasks', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  it('signs each caller its own links, with a fresh expiry, however often the task is polled', async () => {
    const first = api(svc.url, await svc.createKey('links'));
    const second = api(svc.url, await svc.createKey('links'));
    const submit = await first.post('/v1/videos/generations', {
      model: 'grok-imagine-video',
      prompt: 'a harbor at dawn',
      duration: 1,
    });
    assert.equal(submit.status, 200, JSON.stringify(submit.body));
    const id = submit.body.request_id;
    const done = await pollUntil(
      () => first.get(`/v1/videos/${id}`),
      (a) => a.body.status === 'done',
    );
    const again = await second.get(`/v1/videos/${id}`);
    const kidOf = (url: string) => new URL(url).searchParams.get('kid');
    assert.notEqual(kidOf(again.body.video.url), kidOf(done.body.video.url));
    // A second later the same caller gets a link that expires a second later.
    await new Promise((r) => setTimeout(r, 1100));
    const later = await first.get(`/v1/videos/${id}`);
    const expiresOf = (url: string) => Number(new URL(url).searchParams.get('expires'));
    assert.ok(expiresOf(later.body.video.url) > expiresOf(done.body.video.url));
    assert.equal(kidOf(later.body.video.url), kidOf(done.body.video.url));
  });

  it('answers a finished family B task the same each time, and only to its own account', async () => {
    const owner = api(svc.url, await svc.createKey('owner'));
    const stranger = api(svc.url, await svc.createKey('stranger'));
    const submit = await owner.post('/v1/video/generations', { model: 'video-v1-5s', prompt: 'rain on a window' });
    const id = submit.body.task_id;
    const done = await pollUntil(
      () => owner.get(`/v1/video/generations/${id}`),
      (a) => a.body.status === 'SUCCESS' || a.body.status === 'FAILURE',
    );
    const again = await owner.get(`/v1/video/generations/${id}`);
    assert.equal(again.status, 200);
    assert.equal(again.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.deepEqual(again.body, done.body);
    const foreign = await stranger.get(`/v1/video/generations/${id}`);
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.error.code, 'task_not_found');
  });
});
