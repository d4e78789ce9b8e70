import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from './support/service.ts';
import { api, pollUntil } from './support/http.ts';
import { KEY_CACHE_MS } from '../../packages/server/src/api/authenticate.ts';

describe('accounts, keys and models', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ VIDGEN_ROLE: 'api' });
  });
  after(() => svc.close());

  it('answers /healthz without a key', async () => {
    const res = await api(svc.url).get('/healthz');
    assert.equal(res.status, 200);
  });

  it('refuses a missing, malformed, unknown or revoked key with 401', async () => {
    assert.equal((await api(svc.url).get('/v1/models')).status, 401);
    assert.equal((await api(svc.url).get('/v1/models', { authorization: 'Basic abc' })).status, 401);
    const unknown = await api(svc.url, 'vg-not-a-real-key').get('/v1/models');
    assert.equal(unknown.status, 401);
    assert.equal(unknown.body.error.type, 'authentication_error');
    const key = await svc.createKey('revoked');
    assert.equal((await api(svc.url, key).get('/v1/models')).status, 200);
    await svc.revokeKeyOf(key);
    // A revocation takes effect within the key cache's lifetime.
    await pollUntil(
      () => api(svc.url, key).get('/v1/models'),
      (a) => a.status === 401,
      KEY_CACHE_MS + 1000,
    );
  });

  it('lists every catalog model with its capabilities for an unrestricted account', async () => {
    const res = await api(svc.url, await svc.createKey('all-models')).get('/v1/models');
    assert.equal(res.status, 200);
    assert.equal(res.body.object, 'list');
    const ids = res.body.data.map((m: { id: string }) => m.id);
    assert.deepEqual(ids, [
      'vx-imagine-video-1.5-720p',
      'vx-imagine-video-1.5-1080p',
      'video-v1-5s',
      'video-v1-10s',
      'video-v1-15s',
      'vx-imagine-video-edit',
      'vx-imagine-video-extend',
      'grok-imagine-video',
      'grok-imagine-video-1.5',
      'sora-2',
      'sora-2-pro',
    ]);
    const a = res.body.data[1];
    assert.equal(a.object, 'model');
    assert.equal(typeof a.created, 'number');
    assert.equal(a.owned_by, 'vidgen');
    assert.equal(a.family, 'A');
    assert.equal(a.resolution, '1080p');
    assert.deepEqual(
      a.durations,
      Array.from({ length: 15 }, (_, i) => i + 1),
    );
    assert.deepEqual(a.aspect_ratios, ['16:9', '9:16', '1:1', '4:3', '3:4', '3:2', '2:3']);
    assert.deepEqual(a.capabilities, { generate: true, edit: false, extend: false });
    assert.equal(a.requires_image, true);
    const b = res.body.data[3];
    assert.deepEqual(
      [b.family, b.resolution, b.durations, b.aspect_ratios],
      ['B', '720p', [10], ['16:9', '9:16', '1:1']],
    );
  });

  it('lists only the models an account is entitled to', async () => {
    const client = api(svc.url, await svc.createKey('narrow', ['video-v1-5s']));
    const res = await client.get('/v1/models');
    assert.deepEqual(
      res.body.data.map((m: { id: string }) => m.id),
      ['video-v1-5s'],
    );
    assert.equal((await client.get('/v1/models/video-v1-5s')).status, 200);
    assert.equal((await client.get('/v1/models/video-v1-10s')).status, 404);
  });

  it("hides another account's tasks and files behind 404", async () => {
    const alice = api(svc.url, await svc.createKey('alice'));
    const bob = api(svc.url, await svc.createKey('bob'));
    const a = await alice.post('/v1/videos/generations', {
      model: 'vx-imagine-video-1.5-720p',
      prompt: 'p',
      image: { url: 'https://example.com/a.png' },
      duration: 1,
    });
    const b = await alice.post('/v1/video/generations', { model: 'video-v1-5s', prompt: 'p' });
    assert.equal((await alice.get(`/v1/videos/${a.body.request_id}`)).status, 202);
    for (const path of [
      `/v1/videos/${a.body.request_id}`,
      `/v1/video/generations/${b.body.task_id}`,
      `/v1/videos/${b.body.task_id}/content`,
    ]) {
      const res = await bob.get(path);
      assert.equal(res.status, 404, path);
      assert.equal(res.body.error.code, 'task_not_found');
    }
    assert.equal((await bob.get('/v1/videos/00000000-0000-7000-8000-000000000000')).status, 404);
  });
});
