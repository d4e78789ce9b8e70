/**
 * Relayed edits and extensions: a family-A catalog model of kind edit or extend served by
 * a relay backend whose channel is xAI. The input goes to xAI inline, as its clients send a local
 * file; what comes back is verified by vidgen like any output: an edit keeps the input's length and
 * size, an extension adds exactly the seconds asked for.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XaiStandin } from '../../packages/server/test/support/xai-standin.ts';
import { startTestService, type TestService } from './support/service.ts';
import { api, finishedFamilyA, type Api } from './support/http.ts';
import { downloadAndProbe } from './support/video.ts';
import { CLIP, startVideoServer } from './support/video-server.ts';

const XAI_KEY = 'xai-e2e-edits-key';

describe('edits and extensions relayed to xAI', () => {
  let xai: XaiStandin;
  let videos: Awaited<ReturnType<typeof startVideoServer>>;
  let front: TestService;
  let client: Api;
  let dir: string;

  before(async () => {
    xai = await XaiStandin.start({ key: XAI_KEY, models: ['grok-imagine-video'], editModels: ['grok-imagine-video'] });
    videos = await startVideoServer();
    dir = await mkdtemp(join(tmpdir(), 'vidgen-relay-edits-'));
    await writeFile(
      join(dir, 'backends.json'),
      JSON.stringify({
        backends: {
          'relay-xai': {
            type: 'relay',
            channels: [
              {
                name: 'xai',
                dialect: 'A',
                base_url: `${xai.url}/v1`,
                api_key_env: 'TEST_XAI_KEY',
                poll_interval_seconds: 0.1,
                models: { 'relay-imagine-edit': 'grok-imagine-video', 'relay-imagine-extend': 'grok-imagine-video' },
              },
            ],
          },
        },
      }),
    );
    const shape = { family: 'A', backend: 'relay-xai', resolution: '720p', aspect_ratios: ['16:9', '9:16', '1:1'] };
    await writeFile(
      join(dir, 'models.json'),
      JSON.stringify({
        models: [
          {
            id: 'relay-imagine-edit',
            ...shape,
            durations: { min: 1, max: 30 },
            capabilities: { generate: false, edit: true, extend: false },
          },
          {
            id: 'relay-imagine-extend',
            ...shape,
            durations: { min: 1, max: 10 },
            capabilities: { generate: false, edit: false, extend: true },
          },
        ],
      }),
    );
    front = await startTestService({
      VIDGEN_BACKENDS_FILE: join(dir, 'backends.json'),
      VIDGEN_MODELS_FILE: join(dir, 'models.json'),
      TEST_XAI_KEY: XAI_KEY,
    });
    client = api(front.url, await front.createKey('editor'));
  });
  after(async () => {
    await front?.close();
    await xai?.close();
    await videos?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const finished = (path: string, body: unknown) => finishedFamilyA(client, path, body);

  it('an edit goes to /v1/videos/edits with the input inline and comes back as long as its input', async () => {
    const task = await finished('/v1/videos/edits', {
      model: 'relay-imagine-edit',
      prompt: 'make it look like film noir',
      video: { url: `${videos.url}/clip.mp4` },
    });
    const sent = xai.jobs.at(-1)!;
    assert.equal(sent.kind, 'edit');
    // Sound is asked of xAI explicitly, as its own field: none was asked here.
    assert.deepEqual(Object.keys(sent.body).sort(), ['generate_audio', 'model', 'prompt', 'video']);
    assert.equal(sent.body.generate_audio, false);
    assert.equal(
      Buffer.from(sent.body.video.url.slice('data:video/mp4;base64,'.length), 'base64').compare(videos.clip),
      0,
      'the input, byte for byte',
    );
    const { probe } = await downloadAndProbe(task.video.url);
    assert.deepEqual([probe.codec, probe.width, probe.height], ['h264', CLIP.width, CLIP.height]);
    assert.ok(Math.abs(probe.durationSeconds - CLIP.seconds) < 0.05, `lasts ${probe.durationSeconds} s`);
    assert.equal(task.video.duration, CLIP.seconds);
  });

  it('an extension goes to /v1/videos/extensions with the seconds to add and comes back that much longer', async () => {
    const task = await finished('/v1/videos/extensions', {
      model: 'relay-imagine-extend',
      prompt: 'the camera keeps rising',
      video: { url: `${videos.url}/clip.mp4` },
      duration: 3,
    });
    const sent = xai.jobs.at(-1)!;
    assert.deepEqual([sent.kind, sent.body.duration], ['extension', 3]);
    const { probe } = await downloadAndProbe(task.video.url);
    assert.deepEqual([probe.codec, probe.width, probe.height], ['h264', CLIP.width, CLIP.height]);
    assert.ok(Math.abs(probe.durationSeconds - (CLIP.seconds + 3)) < 0.05, `lasts ${probe.durationSeconds} s`);
    assert.ok(!xai.requests.some((q) => q.path.endsWith('/generations')), 'nothing was sent as a generation');
  });
});
