import { it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestService } from './support/service.ts';
import { api, pollUntil } from './support/http.ts';
import { downloadAndProbe } from './support/video.ts';

// A relay configured the way docs/relays.md says: our model forwarded to a second vidgen
// server as the upstream, end to end through both services' public APIs.
it('serves a catalog model by relaying to an upstream configured in VIDGEN_BACKENDS_FILE', async () => {
  const upstream = await startTestService();
  const dir = await mkdtemp(join(tmpdir(), 'vidgen-relay-e2e-'));
  const upstreamKey = await upstream.createKey('relay-channel');
  await writeFile(
    join(dir, 'backends.json'),
    JSON.stringify({
      backends: {
        'relay-video': {
          type: 'relay',
          channels: [
            {
              name: 'second-vidgen',
              dialect: 'B',
              upstream: 'vidgen',
              base_url: upstream.url,
              api_key_env: 'TEST_UPSTREAM_KEY',
              models: { 'relay-video-5s': 'video-v1-5s' },
            },
          ],
        },
      },
    }),
  );
  await writeFile(
    join(dir, 'models.json'),
    JSON.stringify({
      models: [
        {
          id: 'relay-video-5s',
          family: 'B',
          backend: 'relay-video',
          resolution: '720p',
          durations: [5],
          aspect_ratios: ['16:9', '9:16', '1:1'],
        },
      ],
    }),
  );
  const front = await startTestService({
    VIDGEN_BACKENDS_FILE: join(dir, 'backends.json'),
    VIDGEN_MODELS_FILE: join(dir, 'models.json'),
    TEST_UPSTREAM_KEY: upstreamKey,
  });
  try {
    const key = await front.createKey('customer');
    const client = api(front.url, key);
    const id = (
      await client.post('/v1/video/generations', { model: 'relay-video-5s', prompt: 'harbour at dusk', ratio: '9:16' })
    ).body.task_id;
    const done = await pollUntil(
      () => client.get(`/v1/video/generations/${id}`),
      (a) => ['SUCCESS', 'FAILURE'].includes(a.body.status),
    );
    assert.equal(done.body.status, 'SUCCESS', JSON.stringify(done.body));
    const { probe } = await downloadAndProbe(`${front.url}${done.body.result_url}`, { authorization: `Bearer ${key}` });
    assert.deepEqual([probe.codec, probe.width, probe.height], ['h264', 720, 1280]);
    const upstreamTasks = await api(upstream.url, upstreamKey).get('/v1/video/generations');
    assert.equal(upstreamTasks.body.data.length, 1, 'exactly one upstream task');
    assert.ok(
      !JSON.stringify(done.body).includes(upstreamTasks.body.data[0].task_id),
      'the upstream id is never shown',
    );
  } finally {
    await front.close();
    await upstream.close();
    await rm(dir, { recursive: true, force: true });
  }
});
