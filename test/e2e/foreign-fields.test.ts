import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { api } from './support/http.ts';
import { startTestService, type TestService } from './support/service.ts';
import { familyA } from '../../packages/server/src/api/dialects/family-a.ts';
import { familyB } from '../../packages/server/src/api/dialects/family-b.ts';
import { openAiVideos } from '../../packages/server/src/api/dialects/openai-videos.ts';
import { openRouterVideos } from '../../packages/server/src/api/dialects/openrouter-videos.ts';

/**
 * Per dialect: where its creates go, a body it accepts, and for each foreign field a value that
 * agrees with that body's video and one that does not (with a model that renders it).
 */
const DIALECTS = [
  {
    dialect: familyB,
    path: '/v1/video/generations',
    body: { model: 'video-v1-5s', prompt: 'waves' },
    values: {
      seconds: ['5', '10', 'video-v1-10s'],
      duration: [5, 15, 'video-v1-15s'],
      size: ['1280x720', '1920x1080', undefined],
      resolution: ['720p', '480p', undefined],
      aspect_ratio: ['16:9', '9:16', 'video-v1-10s'],
    },
  },
  {
    dialect: familyA,
    path: '/v1/videos/generations',
    body: { model: 'grok-imagine-video', prompt: 'waves', duration: 2 },
    values: {
      seconds: ['2', '3', 'grok-imagine-video-1.5'],
      size: ['1280x720', '1920x1080', 'grok-imagine-video-1.5'],
      ratio: ['16:9', '1:1', 'grok-imagine-video-1.5'],
    },
  },
  {
    dialect: openAiVideos,
    path: '/v1/videos',
    body: { model: 'sora-2', prompt: 'waves', seconds: '4', size: '1280x720' },
    // `duration` and `aspect_ratio` make a body OpenRouter's shape (below).
    values: {
      resolution: ['720p', '1024p', 'sora-2-pro'],
      ratio: ['16:9', '9:16', undefined],
    },
  },
  {
    dialect: openRouterVideos,
    path: '/v1/videos',
    body: { model: 'grok-imagine-video', prompt: 'waves', duration: 2, aspect_ratio: '16:9' },
    values: {
      seconds: ['2', '3', 'grok-imagine-video-1.5'],
      ratio: ['16:9', '1:1', 'grok-imagine-video-1.5'],
    },
  },
] as const;

// Nothing asked for is silently changed: a field of another dialect that would change the video is
// accepted when the model's video agrees with it, else a 400 naming it and the models that render it
// (invariant 4, docs/architecture.md); other unknown fields still pass through.
describe('foreign fields that would change the video', () => {
  let svc: TestService;
  let key: string;
  before(async () => {
    svc = await startTestService();
    key = await svc.createKey('foreign');
  });
  after(() => svc?.close());

  for (const { dialect, path, body, values } of DIALECTS) {
    it(`${path}: walks the dialect's list`, async () => {
      const listed = Object.keys(dialect.foreignFields ?? {}).sort();
      assert.deepEqual(Object.keys(values).sort(), listed, 'the test covers every field of the list');
      const client = api(svc.url, key);
      for (const [name, [agrees, differs, renderedBy]] of Object.entries(values) as Array<
        [string, readonly [unknown, unknown, string | undefined]]
      >) {
        const accepted = await client.post(path, { ...body, [name]: agrees });
        assert.equal(
          accepted.status,
          200,
          `${name}: ${JSON.stringify(agrees)} agrees: ${JSON.stringify(accepted.body)}`,
        );
        const refused = await client.post(path, { ...body, [name]: differs });
        assert.equal(
          refused.status,
          400,
          `${name}: ${JSON.stringify(differs)} differs: ${JSON.stringify(refused.body)}`,
        );
        const { error } = refused.body;
        assert.equal(error.param, name);
        assert.match(error.code, /^unsupported_/);
        assert.ok(error.message.includes(String(differs)), error.message);
        if (renderedBy) assert.ok(error.message.includes(renderedBy), `${name}: ${error.message} names ${renderedBy}`);
      }
      // Any other unknown field passes through, as relays' clients send them.
      const extra = await client.post(path, { ...body, provider: { order: ['x'] }, user: 'someone' });
      assert.equal(extra.status, 200, JSON.stringify(extra.body));
    });
  }
});
