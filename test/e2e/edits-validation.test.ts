import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from './support/service.ts';
import { api, type Api } from './support/http.ts';
import { makeImage } from './support/images.ts';
import { makeClip } from './support/video-server.ts';

async function upload(url: string, key: string, bytes: Buffer, filename: string, type: string) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type }), filename);
  const res = await fetch(`${url}/v1/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  return { status: res.status, body: await res.json() };
}

// Every rule of an edit or extension submit answers a 4xx naming the field, and creates nothing.
// Workers are off (role api): tasks stay pending, and nothing renders.
describe('edit and extension validation', () => {
  let svc: TestService;
  let key: string;
  let client: Api;
  let videoFile: string;
  let imageFile: string;
  let strangersVideo: string;
  let pendingTask: string;
  let canceledTask: string;
  let strangersTask: string;
  const E = '/v1/videos/edits';
  const X = '/v1/videos/extensions';
  const edit = (video: unknown) => ({ model: 'vx-imagine-video-edit', prompt: 'black and white', video });
  const extend = (video: unknown, duration: unknown = 3) => ({
    model: 'vx-imagine-video-extend',
    prompt: 'zoom in',
    video,
    duration,
  });

  before(async () => {
    svc = await startTestService({ VIDGEN_ROLE: 'api' });
    key = await svc.createKey('validator');
    client = api(svc.url, key);
    const clip = await makeClip({ width: 64, height: 36, seconds: 1, fps: 24 });
    const video = await upload(svc.url, key, clip, 'clip.mp4', 'video/mp4');
    assert.equal(video.status, 200, JSON.stringify(video.body));
    videoFile = video.body.id;
    imageFile = (await upload(svc.url, key, await makeImage(64, 48), 'frame.png', 'image/png')).body.id;
    const strangerKey = await svc.createKey('stranger');
    strangersVideo = (await upload(svc.url, strangerKey, clip, 'theirs.mp4', 'video/mp4')).body.id;
    pendingTask = (await client.post('/v1/video/generations', { model: 'video-v1-5s', prompt: 'waves' })).body.task_id;
    canceledTask = (await client.post('/v1/video/generations', { model: 'video-v1-5s', prompt: 'more waves' })).body
      .task_id;
    assert.equal((await client.post(`/v1/video/generations/${canceledTask}/cancel`)).status, 200);
    strangersTask = (
      await api(svc.url, strangerKey).post('/v1/video/generations', { model: 'video-v1-5s', prompt: 'theirs' })
    ).body.task_id;
  });
  after(() => svc.close());

  const refused = (name: string, path: string, body: () => unknown, param: string, code: string, pattern: RegExp) =>
    it(name, async () => {
      const res = await client.post(path, body());
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error.param, param);
      assert.equal(res.body.error.code, code);
      assert.match(res.body.error.message, pattern);
    });

  describe('uploads', () => {
    it('takes an MP4, sniffed and probed, whatever it is called', async () => {
      const res = await upload(
        svc.url,
        key,
        await makeClip({ width: 64, height: 36, seconds: 1, fps: 24 }),
        'clip.bin',
        'application/octet-stream',
      );
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.mime_type, 'video/mp4');
    });
    it('refuses a file that only looks like an MP4', async () => {
      const fake = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypisom'), Buffer.alloc(64, 7)]);
      const res = await upload(svc.url, key, fake, 'fake.mp4', 'video/mp4');
      assert.equal(res.status, 400);
      assert.equal(res.body.error.param, 'file');
      assert.match(res.body.error.message, /could not be read/);
    });
    it('refuses what is neither image nor MP4, naming both', async () => {
      const res = await upload(svc.url, key, Buffer.from('\x1aE\xdf\xa3 webm-ish'), 'clip.webm', 'video/webm');
      assert.equal(res.status, 400);
      assert.match(res.body.error.message, /JPEG or PNG image, an MP4 video, or WAV, MP3 or AAC\/M4A audio/);
    });
  });

  describe('the video field', () => {
    refused(
      'video is required',
      E,
      () => ({ model: 'vx-imagine-video-edit', prompt: 'sepia' }),
      'video',
      'missing_field',
      /`video` is required/,
    );
    refused(
      'video must be an object',
      E,
      () => edit('https://x.test/v.mp4'),
      'video',
      'invalid_type',
      /must be an object/,
    );
    refused(
      'video needs one source',
      E,
      () => edit({}),
      'video',
      'invalid_video',
      /exactly one of `url`, `file_id` or `request_id`/,
    );
    refused(
      'video takes only one source',
      X,
      () => extend({ url: 'https://x.test/v.mp4', request_id: pendingTask }),
      'video',
      'invalid_video',
      /exactly one/,
    );
    refused('video.url must be a string', E, () => edit({ url: 7 }), 'video.url', 'invalid_type', /must be a string/);
    refused(
      'video.url must be http(s)',
      E,
      () => edit({ url: 'ftp://x.test/v.mp4' }),
      'video.url',
      'invalid_video',
      /http\(s\) URL/,
    );
    refused(
      'video.url may not be a data URI',
      E,
      () => edit({ url: 'data:video/mp4;base64,AAAA' }),
      'video.url',
      'invalid_video',
      /upload a local video/,
    );
    refused(
      'video.file_id must be a file of the account',
      E,
      () => edit({ file_id: 'file-nope' }),
      'video.file_id',
      'file_not_found',
      /not a file of this account/,
    );
    refused(
      "another account's file is unknown",
      X,
      () => extend({ file_id: strangersVideo }),
      'video.file_id',
      'file_not_found',
      /not a file of this account/,
    );
    refused(
      'video.file_id must be a video',
      E,
      () => edit({ file_id: imageFile }),
      'video.file_id',
      'invalid_video',
      /is an image; upload an MP4/,
    );
    refused(
      'video.request_id must be a task of the account',
      E,
      () => edit({ request_id: '00000000-0000-7000-8000-000000000000' }),
      'video.request_id',
      'task_not_found',
      /not a task of this account/,
    );
    refused(
      "another account's task is unknown",
      E,
      () => edit({ request_id: strangersTask }),
      'video.request_id',
      'task_not_found',
      /not a task of this account/,
    );
    refused(
      'a canceled task has no video',
      E,
      () => edit({ request_id: canceledTask }),
      'video.request_id',
      'task_not_done',
      /is canceled/,
    );
    refused(
      'video.request_id must be done',
      X,
      () => extend({ request_id: pendingTask }),
      'video.request_id',
      'task_not_done',
      /still pending; only a done task's video/,
    );
  });

  describe('models and durations', () => {
    refused(
      'an extension needs its duration',
      X,
      () => ({ model: 'vx-imagine-video-extend', prompt: 'p', video: { file_id: videoFile } }),
      'duration',
      'missing_field',
      /`duration` is required/,
    );
    refused(
      'an extension adds at least 1 s',
      X,
      () => extend({ file_id: videoFile }, 0),
      'duration',
      'out_of_range',
      /at least 1/,
    );
    refused(
      'an extension adds at most 10 s',
      X,
      () => extend({ file_id: videoFile }, 11),
      'duration',
      'out_of_range',
      /at most 10/,
    );
    refused(
      'the edit model does not extend',
      X,
      () => ({ ...extend({ file_id: videoFile }), model: 'vx-imagine-video-edit' }),
      'model',
      'model_not_supported',
      /does not offer extensions/,
    );
    refused(
      'the extend model does not edit',
      E,
      () => ({ ...edit({ file_id: videoFile }), model: 'vx-imagine-video-extend' }),
      'model',
      'model_not_supported',
      /does not offer edits/,
    );
    refused(
      'the edit model does not generate',
      '/v1/videos/generations',
      () => ({ model: 'vx-imagine-video-edit', prompt: 'p', duration: 3 }),
      'model',
      'model_not_supported',
      /does not offer generations/,
    );
    refused(
      'a first frame must be an image, not a video',
      '/v1/videos/generations',
      () => ({ model: 'vx-imagine-video-1.5-720p', prompt: 'p', duration: 3, image: { file_id: videoFile } }),
      'image.file_id',
      'invalid_image',
      /is a video, not an image/,
    );

    it('lists what each model offers, the 1.5 models still generations only', async () => {
      const models = (await client.get('/v1/models')).body.data as Array<{
        id: string;
        capabilities: Record<string, boolean>;
      }>;
      const caps = Object.fromEntries(models.map((m) => [m.id, m.capabilities]));
      assert.deepEqual(caps['vx-imagine-video-edit'], { generate: false, edit: true, extend: false });
      assert.deepEqual(caps['vx-imagine-video-extend'], { generate: false, edit: false, extend: true });
      assert.deepEqual(caps['vx-imagine-video-1.5-720p'], { generate: true, edit: false, extend: false });
    });

    it('accepts a valid edit and extension with {request_id} only', async () => {
      for (const [path, body] of [
        [E, edit({ file_id: videoFile })],
        [X, extend({ url: 'https://example.com/v.mp4' })],
      ] as const) {
        const res = await client.post(path, body);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.deepEqual(Object.keys(res.body), ['request_id']);
        const task = await client.get(`/v1/videos/${res.body.request_id}`);
        assert.equal(task.status, 202);
        assert.equal(task.body.model, body.model);
      }
    });
  });
});
