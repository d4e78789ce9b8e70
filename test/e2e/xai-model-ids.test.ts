import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestService, type TestService } from './support/service.ts';
import { api, pollUntil, type Api } from './support/http.ts';
import { bootstrapKeyOf, spawnServer } from './support/process.ts';
import { downloadAndProbe } from './support/video.ts';
import defaultModels from '../../packages/server/src/catalog/default-models.json' with { type: 'json' };

// Clients written for xAI send its model ids and check `data[].id`; they work with no configuration.
describe('xAI model ids, aliases and the model a poll reports', () => {
  let svc: TestService;
  let dir: string;
  let client: Api;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vidgen-models-'));
    // The built-in catalog plus an operator's alias, as a models file would add one.
    const models = structuredClone(defaultModels) as { models: Array<Record<string, unknown>> };
    models.models.find((m) => m.id === 'video-v1-5s')!.aliases = ['house-video'];
    await writeFile(join(dir, 'models.json'), JSON.stringify(models));
    svc = await startTestService({ VIDGEN_MODELS_FILE: join(dir, 'models.json') });
    client = api(svc.url, await svc.createKey('xai-client'));
  });
  after(async () => {
    await svc.close();
    await rm(dir, { recursive: true, force: true });
  });

  const finish = async (path: string, id: string) =>
    pollUntil(
      () => client.get(`${path}/${id}`),
      (a) => a.status === 200,
    );

  it('lists both grok ids as models of their own, text-to-video, 720p by default, with their resolutions', async () => {
    const { body } = await client.get('/v1/models');
    for (const id of ['grok-imagine-video', 'grok-imagine-video-1.5']) {
      const model = body.data.find((m: { id: string }) => m.id === id);
      assert.ok(model, `${id} is listed`);
      assert.deepEqual(
        [model.family, model.resolution, model.resolutions, model.requires_image],
        ['A', '720p', ['720p', '480p', '1080p'], false],
      );
      assert.equal(model.alias_of, undefined);
    }
  });

  it('lists an alias as an entry of its own that names its target', async () => {
    const { body } = await client.get('/v1/models');
    const alias = body.data.find((m: { id: string }) => m.id === 'house-video');
    assert.deepEqual([alias.alias_of, alias.family, alias.durations], ['video-v1-5s', 'B', [5]]);
    assert.deepEqual(body.data.find((m: { id: string }) => m.id === 'video-v1-5s').aliases, ['house-video']);
    assert.equal((await client.get('/v1/models/house-video')).body.alias_of, 'video-v1-5s');
  });

  it('renders grok-imagine-video text-to-video at the requested resolution and reports the id as sent', async () => {
    const submit = await client.post('/v1/videos/generations', {
      model: 'grok-imagine-video',
      prompt: 'a lighthouse at dusk',
      duration: 1,
      resolution: '480p',
    });
    assert.equal(submit.status, 200, JSON.stringify(submit.body));
    const done = await finish('/v1/videos', submit.body.request_id);
    assert.equal(done.body.status, 'done', JSON.stringify(done.body));
    assert.equal(done.body.model, 'grok-imagine-video');
    const { probe } = await downloadAndProbe(done.body.video.url);
    assert.deepEqual([probe.width, probe.height], [854, 480]);
  });

  it('refuses a resolution the model does not offer, naming the field', async () => {
    const res = await client.post('/v1/videos/generations', {
      model: 'vx-imagine-video-1.5-720p',
      prompt: 'x',
      duration: 1,
      resolution: '1080p',
      image: { url: 'https://example.com/a.png' },
    });
    assert.equal(res.status, 400);
    assert.deepEqual([res.body.error.code, res.body.error.param], ['unsupported_resolution', 'resolution']);
    assert.match(res.body.error.message, /720p/);
  });

  it("keeps docs/service-spec.md's suffix-less form for docs/service-spec.md's ids, and echoes an alias as sent", async () => {
    const a = await client.post('/v1/videos/generations', {
      model: 'vx-imagine-video-1.5-720p',
      prompt: 'slow pan',
      duration: 1,
      image: {
        url: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      },
    });
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.equal((await client.get(`/v1/videos/${a.body.request_id}`)).body.model, 'vx-imagine-video-1.5');
    const b = await client.post('/v1/video/generations', { model: 'house-video', prompt: 'waves on a beach' });
    assert.equal(b.status, 200, JSON.stringify(b.body));
    assert.equal((await client.get(`/v1/video/generations/${b.body.task_id}`)).body.model, 'house-video');
    // A listing filtered by the alias finds the task, which the store keeps under the model's id.
    const listed = await client.get('/v1/video/generations?model=house-video');
    assert.deepEqual(
      listed.body.data.map((t: { task_id: string }) => t.task_id),
      [b.body.task_id],
    );
    // Listings tell tasks apart: each carries its prompt and the model name as sent.
    const listedA = (await client.get('/v1/videos')).body.data.find(
      (t: { request_id: string }) => t.request_id === a.body.request_id,
    );
    assert.deepEqual(
      [listedA.prompt, listedA.requested_model, listedA.model],
      ['slow pan', 'vx-imagine-video-1.5-720p', 'vx-imagine-video-1.5'],
    );
    assert.deepEqual(
      [listed.body.data[0].prompt, listed.body.data[0].requested_model],
      ['waves on a beach', 'house-video'],
    );
    await finish('/v1/videos', a.body.request_id);
    await finish('/v1/video/generations', b.body.task_id);
  });
});

describe('a fresh `npm start`', () => {
  it('lists grok-imagine-video and grok-imagine-video-1.5 to the bootstrap key', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'vidgen-fresh-'));
    try {
      // What `npm start` runs, with nothing but a data dir of its own.
      const server = await spawnServer({ VIDGEN_DATA_DIR: dataDir });
      try {
        const key = await bootstrapKeyOf(server);
        const ids = (await api(server.url, key).get('/v1/models')).body.data.map((m: { id: string }) => m.id);
        assert.ok(ids.includes('grok-imagine-video') && ids.includes('grok-imagine-video-1.5'), ids.join(', '));
      } finally {
        await server.stop();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
