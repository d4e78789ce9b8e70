import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { api, pollUntil, type Answer } from './support/http.ts';
import { startTestService, type TestService } from './support/service.ts';

const CATALOG = fileURLToPath(new URL('../../packages/server/src/catalog/default-models.json', import.meta.url));

// Every refusal of a value not among the offered ones names the value sent and what is offered
// instead, in the words of the dialect it was sent in (invariant 4, docs/architecture.md).
describe('refusals of a value that is not offered', () => {
  let svc: TestService;
  let dir: string;
  let key: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vidgen-offered-'));
    const catalog = JSON.parse(await readFile(CATALOG, 'utf8'));
    const b = catalog.models.find((m: { id: string }) => m.id === 'video-v1-5s');
    catalog.models.push({ ...b, id: 'silent-5s', sound: 'none' }, { ...b, id: 'loud-5s', sound: 'always' });
    await writeFile(join(dir, 'models.json'), JSON.stringify(catalog));
    svc = await startTestService({ VIDGEN_MODELS_FILE: join(dir, 'models.json') });
    key = await svc.createKey('offered');
  });
  after(async () => {
    await svc?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** The refusal names `sent` and every one of `offered`. */
  const refused = (answer: Answer, code: string, param: string, sent: string, offered: string[]) => {
    assert.equal(answer.status, 400, JSON.stringify(answer.body));
    const { error } = answer.body;
    assert.equal(error.code, code, error.message);
    assert.equal(error.param, param, error.message);
    assert.ok(error.message.includes(sent), `${code}: '${error.message}' names ${sent}`);
    for (const value of offered)
      assert.ok(error.message.includes(value), `${code}: '${error.message}' offers ${value}`);
  };
  const post = (path: string, body: unknown) => api(svc.url, key).post(path, body);

  it('unsupported_duration: OpenAI `seconds` "6" names 6 and offers 4, 8, 12', async () => {
    const answer = await post('/v1/videos', { model: 'sora-2', prompt: 'waves', seconds: '6' });
    refused(answer, 'unsupported_duration', 'seconds', '6', ['4, 8, 12']);
  });

  it('unsupported_resolution and unsupported_aspect_ratio: OpenAI `size` names the size and the sizes', async () => {
    const big = await post('/v1/videos', { model: 'sora-2', prompt: 'waves', size: '1920x1080' });
    refused(big, 'unsupported_resolution', 'size', '1920x1080', ['1280x720, 720x1280']);
    const square = await post('/v1/videos', { model: 'sora-2', prompt: 'waves', size: '720x720' });
    refused(square, 'unsupported_aspect_ratio', 'size', '720x720', ['1280x720, 720x1280']);
  });

  it('unsupported_resolution, unsupported_aspect_ratio and invalid_aspect_ratio in families A and B', async () => {
    const a = { model: 'vx-imagine-video-1.5-720p', prompt: 'waves', duration: 1, image: { url: 'x' } };
    const resolution = await post('/v1/videos/generations', { ...a, resolution: '1080p' });
    refused(resolution, 'unsupported_resolution', 'resolution', '1080p', ['720p']);
    const ratio = await post('/v1/video/generations', { model: 'video-v1-5s', prompt: 'waves', ratio: '4:3' });
    refused(ratio, 'unsupported_aspect_ratio', 'ratio', '4:3', ['16:9, 9:16, 1:1']);
    const unknown = await post('/v1/videos/generations', { ...a, aspect_ratio: '21:9' });
    refused(unknown, 'invalid_aspect_ratio', 'aspect_ratio', '21:9', ['16:9, 9:16, 1:1, 4:3, 3:4, 3:2, 2:3']);
  });

  it('unsupported_audio names what was asked and what the model makes', async () => {
    const silent = await post('/v1/video/generations', { model: 'silent-5s', prompt: 'waves', generate_audio: true });
    refused(silent, 'unsupported_audio', 'generate_audio', 'true', ['false']);
    const loud = await post('/v1/video/generations', { model: 'loud-5s', prompt: 'waves', generate_audio: false });
    refused(loud, 'unsupported_audio', 'generate_audio', 'false', ['true']);
  });

  it('model_not_found and model_not_supported name the model and the ones to use instead', async () => {
    const missing = await post('/v1/video/generations', { model: 'no-such-model', prompt: 'waves' });
    refused(missing, 'model_not_found', 'model', 'no-such-model', ['video-v1-5s', 'video-v1-10s', 'silent-5s']);
    const video = { url: 'https://example.com/a.mp4' };
    const edit = await post('/v1/videos/edits', { model: 'vx-imagine-video-1.5-720p', prompt: 'night', video });
    refused(edit, 'model_not_supported', 'model', 'vx-imagine-video-1.5-720p', [
      'vx-imagine-video-edit',
      'grok-imagine-video',
    ]);
  });

  it('invalid_status and invalid_variant name the word sent and the words offered', async () => {
    const status = await api(svc.url, key).get('/v1/video/generations?status=finished');
    refused(status, 'invalid_status', 'status', 'finished', ['queued', 'IN_PROGRESS', 'SUCCESS', 'FAILURE']);
    const created = await post('/v1/video/generations', { model: 'video-v1-5s', prompt: 'waves' });
    assert.equal(created.status, 200);
    const variant = await api(svc.url, key).get(`/v1/videos/${created.body.task_id}/content?variant=gif`);
    refused(variant, 'invalid_variant', 'variant', 'gif', ['thumbnail', 'spritesheet']);
  });
});

// Refusals that say what to do: a loopback webhook names the variable and the CLI that receive one
// locally; a fetched input over the byte limit has its own code, with the limit and its variable.
describe('refusals that point the way', () => {
  let svc: TestService;
  let key: string;
  let big: Server;
  let bigUrl: string;
  before(async () => {
    svc = await startTestService({ VIDGEN_ALLOW_PRIVATE_URLS: '0' });
    key = await svc.createKey('pointed');
    // Two MiB, announced: the fetch refuses it at the header.
    big = createServer((_req, res) =>
      res.writeHead(200, { 'content-length': 2 * 1024 * 1024 }).end(Buffer.alloc(2 * 1024 * 1024)),
    );
    await new Promise<void>((resolve) => big.listen(0, '127.0.0.1', resolve));
    bigUrl = `http://127.0.0.1:${(big.address() as AddressInfo).port}`;
  });
  after(async () => {
    await svc?.close();
    await new Promise((resolve) => big?.close(resolve));
  });

  it('a loopback webhook names VIDGEN_ALLOW_PRIVATE_URLS=1 and `vidgen webhooks listen`', async () => {
    const answer = await api(svc.url, key).post('/v1/webhooks', { url: 'http://127.0.0.1:9/hook' });
    assert.equal(answer.status, 400, JSON.stringify(answer.body));
    assert.equal(answer.body.error.code, 'webhook_url_forbidden');
    assert.match(answer.body.error.message, /VIDGEN_ALLOW_PRIVATE_URLS=1/);
    assert.match(answer.body.error.message, /`vidgen webhooks listen/);
  });

  it('an input over the byte limit fails input_too_large, naming the limit and its variable', async () => {
    // The big file is on loopback: a service that allows private URLs fetches it (and meets the limit).
    const open = await startTestService({ VIDGEN_FETCH_MAX_MB: '1', VIDGEN_FETCH_VIDEO_MAX_MB: '1' });
    try {
      const client = api(open.url, await open.createKey('big'));
      const cases: Array<[string, unknown, string]> = [
        [
          '/v1/videos/generations',
          { model: 'vx-imagine-video-1.5-720p', prompt: 'waves', duration: 1, image: { url: `${bigUrl}/a.png` } },
          'VIDGEN_FETCH_MAX_MB',
        ],
        [
          '/v1/videos/edits',
          { model: 'vx-imagine-video-edit', prompt: 'night', video: { url: `${bigUrl}/a.mp4` } },
          'VIDGEN_FETCH_VIDEO_MAX_MB',
        ],
      ];
      for (const [path, body, variable] of cases) {
        const submitted = await client.post(path, body);
        assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
        const ended = await pollUntil(
          () => client.get(`/v1/videos/${submitted.body.request_id}`),
          (a) => a.body.status === 'failed',
        ).catch((err: Error) => assert.fail(err.message));
        assert.equal(ended.body.error.code, 'input_too_large', JSON.stringify(ended.body));
        assert.match(ended.body.error.message, /1 MiB/);
        assert.ok(ended.body.error.message.includes(variable), ended.body.error.message);
      }
    } finally {
      await open.close();
    }
  });
});
