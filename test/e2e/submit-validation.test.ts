import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from './support/service.ts';
import { api, type Api } from './support/http.ts';

// Every submit rule of the spec answers a 4xx whose error names the field, and creates nothing.
// Workers are off (role api) so nothing here renders.
describe('submit validation', () => {
  let svc: TestService;
  let client: Api;
  const A = '/v1/videos/generations';
  const B = '/v1/video/generations';
  const aOk = {
    model: 'vx-imagine-video-1.5-720p',
    prompt: 'zoom in slowly',
    image: { url: 'https://example.com/a.png' },
    duration: 3,
  };
  const bOk = { model: 'video-v1-5s', prompt: 'a lighthouse at night' };
  const PNG_1PX = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

  before(async () => {
    svc = await startTestService({ VIDGEN_ROLE: 'api' });
    client = api(
      svc.url,
      await svc.createKey('validation', ['vx-imagine-video-1.5-720p', 'video-v1-5s', 'video-v1-10s']),
    );
  });
  after(() => svc.close());

  const refused = (name: string, path: string, body: unknown, param: string | null, pattern: RegExp, status = 400) =>
    it(name, async () => {
      const res = await client.post(path, body);
      assert.equal(res.status, status, JSON.stringify(res.body));
      assert.equal(res.body.error.param, param);
      assert.match(res.body.error.message, pattern);
      assert.equal(typeof res.body.error.type, 'string');
      assert.equal(typeof res.body.error.code, 'string');
    });

  it('names the right endpoint before any field: a family B model on the family A path without duration', async () => {
    for (const [path, model, missing] of [
      [A, 'video-v1-5s', { prompt: 'p' }],
      [B, 'vx-imagine-video-1.5-720p', {}],
    ] as const) {
      const res = await client.post(path, { model, ...missing });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error.code, 'model_wrong_endpoint', JSON.stringify(res.body));
      assert.equal(res.body.error.param, 'model');
    }
    const unknown = await client.post(A, { model: 'no-such-model', prompt: 'p' });
    assert.notEqual(unknown.body.error.code, 'model_wrong_endpoint', 'an unknown model still gets the field checks');
  });

  describe('family A', () => {
    refused('model is required', A, { ...aOk, model: undefined }, 'model', /`model` is required/);
    refused('model must exist', A, { ...aOk, model: 'nope' }, 'model', /'nope' does not exist or is not available/);
    refused(
      'model must be entitled',
      A,
      { ...aOk, model: 'vx-imagine-video-1.5-1080p' },
      'model',
      /not available to this account/,
    );
    refused(
      'a family B model is sent to its own endpoint',
      A,
      { ...aOk, model: 'video-v1-5s' },
      'model',
      /POST \/v1\/video\/generations/,
    );
    refused('prompt is required', A, { ...aOk, prompt: undefined }, 'prompt', /`prompt` is required/);
    refused('prompt must not be blank', A, { ...aOk, prompt: '   ' }, 'prompt', /must not be empty/);
    refused('prompt must be a string', A, { ...aOk, prompt: 42 }, 'prompt', /must be a string/);
    refused('image is required for the 1.5 models', A, { ...aOk, image: undefined }, 'image', /`image` is required/);
    refused('image must be an object', A, { ...aOk, image: 'https://example.com/a.png' }, 'image', /must be an object/);
    refused(
      'image needs one of url or file_id',
      A,
      { ...aOk, image: {} },
      'image',
      /exactly one of `url` or `file_id`/,
    );
    refused(
      'image may not have both',
      A,
      { ...aOk, image: { url: 'https://x.test/a.png', file_id: 'file-1' } },
      'image',
      /exactly one/,
    );
    refused(
      'image.url must be http(s)',
      A,
      { ...aOk, image: { url: 'ftp://example.com/a.png' } },
      'image.url',
      /http\(s\) URL/,
    );
    refused(
      'image.url data URI needs a supported prefix',
      A,
      { ...aOk, image: { url: `data:image/gif;base64,${PNG_1PX}` } },
      'image.url',
      /data:image\/jpeg;base64,/,
    );
    refused(
      'image.file_id must be a file of the account',
      A,
      { ...aOk, image: { file_id: 'file-unknown' } },
      'image.file_id',
      /not a file of this account/,
    );
    refused('duration is required', A, { ...aOk, duration: undefined }, 'duration', /`duration` is required/);
    refused('duration must be an integer', A, { ...aOk, duration: 2.5 }, 'duration', /must be an integer/);
    refused('duration must not be a string', A, { ...aOk, duration: '5' }, 'duration', /must be an integer/);
    refused('duration at least 1', A, { ...aOk, duration: 0 }, 'duration', /at least 1/);
    refused('duration at most 15', A, { ...aOk, duration: 16 }, 'duration', /at most 15/);
    refused(
      'aspect_ratio must be a known value',
      A,
      { ...aOk, aspect_ratio: '21:9' },
      'aspect_ratio',
      /'21:9' is not an aspect ratio; model '[^']+' supports 16:9, 9:16, 1:1, 4:3, 3:4, 3:2, 2:3/,
    );
    refused(
      'edits are refused for the 1.5 generation models',
      '/v1/videos/edits',
      { model: 'vx-imagine-video-1.5-720p', prompt: 'make it black and white', video: { url: 'https://x.test/v.mp4' } },
      'model',
      /does not offer edits/,
    );
    refused(
      'extensions are refused for the 1.5 generation models',
      '/v1/videos/extensions',
      { model: 'vx-imagine-video-1.5-720p', prompt: 'continue', video: { url: 'https://x.test/v.mp4' }, duration: 3 },
      'model',
      /does not offer extensions/,
    );

    it('accepts a valid submit with {request_id} only', async () => {
      const res = await client.post(A, { ...aOk, aspect_ratio: '3:2' });
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body), ['request_id']);
      assert.match(res.body.request_id, /^[0-9a-f-]{36}$/);
    });
  });

  describe('family B', () => {
    refused('model must exist', B, { ...bOk, model: 'video-v2' }, 'model', /'video-v2' does not exist/);
    refused('model must be entitled', B, { ...bOk, model: 'video-v1-15s' }, 'model', /not available to this account/);
    refused(
      'a family A model is sent to its own endpoint',
      B,
      { ...bOk, model: 'vx-imagine-video-1.5-720p' },
      'model',
      /POST \/v1\/videos\/generations/,
    );
    refused('prompt must not be empty', B, { ...bOk, prompt: '' }, 'prompt', /must not be empty/);
    refused(
      'image and images are alternatives',
      B,
      { ...bOk, image: 'https://x.test/a.png', images: ['https://x.test/b.png'] },
      'images',
      /either `image` or `images`, not both/,
    );
    refused(
      'image must be a string',
      B,
      { ...bOk, image: { url: 'https://x.test/a.png' } },
      'image',
      /must be a string/,
    );
    refused(
      'images must be strings',
      B,
      { ...bOk, images: ['https://x.test/a.png', 7] },
      'images[1]',
      /must be a string/,
    );
    refused(
      'a bare Base64 image lacks its MIME prefix',
      B,
      { ...bOk, image: PNG_1PX },
      'image',
      /must start with data:image\/jpeg;base64, or data:image\/png;base64,/,
    );
    refused(
      'a data URI with another prefix is refused',
      B,
      { ...bOk, images: [`data:image/webp;base64,${PNG_1PX}`] },
      'images[0]',
      /Only data URIs starting with/,
    );
    refused(
      'a data URI whose bytes are not the declared type',
      B,
      { ...bOk, image: `data:image/jpeg;base64,${PNG_1PX}` },
      'image',
      /not a JPEG|PNG/,
    );
    refused(
      'ratio must be one the model allows',
      B,
      { ...bOk, ratio: '4:3' },
      'ratio',
      /'4:3' is not supported by model 'video-v1-5s'; it supports 16:9, 9:16, 1:1/,
    );
    refused(
      'ratio must be a known value',
      B,
      { ...bOk, ratio: 'wide' },
      'ratio',
      /'wide' is not an aspect ratio; model '[^']+' supports 16:9, 9:16, 1:1/,
    );

    it('answers {task_id, status: queued, seconds} with the model duration', async () => {
      const res = await client.post(B, { ...bOk, model: 'video-v1-10s', image: `data:image/png;base64,${PNG_1PX}` });
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body).sort(), ['seconds', 'status', 'task_id']);
      assert.equal(res.body.status, 'queued');
      assert.equal(res.body.seconds, '10');
    });
  });

  describe('bodies', () => {
    it('refuses a non-JSON body with 415', async () => {
      const res = await client.post(A, 'model=x', { 'content-type': 'text/plain' });
      assert.equal(res.status, 415);
      assert.equal(res.body.error.code, 'unsupported_media_type');
    });
    it('refuses malformed JSON with 400', async () => {
      const res = await client.post(A, '{"model":', { 'content-type': 'application/json' });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, 'invalid_json');
    });
    it('refuses a JSON array body', async () => {
      const res = await client.post(B, '[]');
      assert.equal(res.status, 400);
      assert.match(res.body.error.message, /JSON object/);
    });
    it('every answer carries x-request-id, errors included', async () => {
      const res = await client.post(B, { ...bOk, model: 'nope' });
      assert.match(res.headers.get('x-request-id') ?? '', /^req-/);
    });
  });
});
