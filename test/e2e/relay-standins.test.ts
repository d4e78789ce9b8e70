/**
 * Relays to the stand-ins, through vidgen's public API: a 720p 16:9 5 s task of ours relayed to the
 * xAI stand-in and to the new-api stand-in (both written from those services' own code) each end as
 * a verified MP4 of that shape, downloaded by the customer from vidgen, with exactly one upstream job.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XaiStandin } from '../../packages/server/test/support/xai-standin.ts';
import { NewApiStandin } from '../../packages/server/test/support/newapi-standin.ts';
import { startTestService, type TestService } from './support/service.ts';
import { api, pollUntil, type Api } from './support/http.ts';
import { downloadAndProbe } from './support/video.ts';

const XAI_KEY = 'xai-e2e-standin-key';
const NEWAPI_KEY = 'sk-newapi-e2e-key';

describe('relaying to the xAI and new-api stand-ins', () => {
  let xai: XaiStandin;
  let newApi: NewApiStandin;
  let front: TestService;
  let client: Api;
  let key: string;
  let dir: string;

  before(async () => {
    xai = await XaiStandin.start({ key: XAI_KEY, models: ['grok-imagine-video'] });
    newApi = await NewApiStandin.start({ key: NEWAPI_KEY, models: ['video-v1'] });
    dir = await mkdtemp(join(tmpdir(), 'vidgen-relay-standins-'));
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
                models: { 'xai-720p-5s': 'grok-imagine-video' },
                poll_interval_seconds: 0.1,
              },
            ],
          },
          'relay-newapi': {
            type: 'relay',
            channels: [
              {
                name: 'newapi',
                dialect: 'B',
                base_url: newApi.url,
                api_key_env: 'TEST_NEWAPI_KEY',
                models: { 'newapi-720p-5s': 'video-v1' },
                poll_interval_seconds: 0.1,
              },
            ],
          },
        },
      }),
    );
    const shape = { resolution: '720p', durations: [5], aspect_ratios: ['16:9', '9:16'] };
    await writeFile(
      join(dir, 'models.json'),
      JSON.stringify({
        models: [
          // Our family A model relayed to xAI, and our family B model relayed to new-api.
          { id: 'xai-720p-5s', family: 'A', backend: 'relay-xai', ...shape },
          { id: 'newapi-720p-5s', family: 'B', backend: 'relay-newapi', ...shape },
        ],
      }),
    );
    front = await startTestService({
      VIDGEN_BACKENDS_FILE: join(dir, 'backends.json'),
      VIDGEN_MODELS_FILE: join(dir, 'models.json'),
      TEST_XAI_KEY: XAI_KEY,
      TEST_NEWAPI_KEY: NEWAPI_KEY,
    });
    key = await front.createKey('customer');
    client = api(front.url, key);
  });
  after(async () => {
    await front?.close();
    await xai?.close();
    await newApi?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('xAI: a family A task ends as a verified 1280×720 5 s MP4, from one upstream job', async () => {
    const submit = await client.post('/v1/videos/generations', {
      model: 'xai-720p-5s',
      prompt: 'a lighthouse at dusk',
      duration: 5,
      aspect_ratio: '16:9',
    });
    assert.equal(submit.status, 200, JSON.stringify(submit.body));
    const done = await pollUntil(
      () => client.get(`/v1/videos/${submit.body.request_id}`),
      (a) => a.body.status !== 'pending',
    );
    assert.equal(done.body.status, 'done', JSON.stringify(done.body));
    const { probe } = await downloadAndProbe(done.body.video.url);
    assert.deepEqual([probe.codec, probe.width, probe.height], ['h264', 1280, 720]);
    assert.ok(Math.abs(probe.durationSeconds - 5) < 0.05, `lasts ${probe.durationSeconds} s`);
    assert.equal(xai.jobs.length, 1, 'exactly one upstream job');
    assert.deepEqual(
      [xai.jobs[0].body.resolution, xai.jobs[0].body.aspect_ratio, xai.jobs[0].body.duration],
      ['720p', '16:9', 5],
    );
  });

  it('new-api: a family B task ends as a verified 1280×720 5 s MP4, from one upstream task', async () => {
    const submit = await client.post('/v1/video/generations', {
      model: 'newapi-720p-5s',
      prompt: 'a harbour at dawn',
      ratio: '16:9',
    });
    assert.equal(submit.status, 200, JSON.stringify(submit.body));
    const id = submit.body.task_id;
    const done = await pollUntil(
      () => client.get(`/v1/video/generations/${id}`),
      (a) => ['SUCCESS', 'FAILURE'].includes(a.body.status),
    );
    assert.equal(done.body.status, 'SUCCESS', JSON.stringify(done.body));
    const { probe } = await downloadAndProbe(`${front.url}${done.body.result_url}`, { authorization: `Bearer ${key}` });
    assert.deepEqual([probe.codec, probe.width, probe.height], ['h264', 1280, 720]);
    assert.ok(Math.abs(probe.durationSeconds - 5) < 0.05, `lasts ${probe.durationSeconds} s`);
    assert.equal(newApi.tasks.length, 1, 'exactly one upstream task');
    assert.deepEqual([newApi.tasks[0].body.size, newApi.tasks[0].body.seconds], ['1280x720', '5']);
    assert.ok(!JSON.stringify(done.body).includes(newApi.tasks[0].taskId), 'the upstream id is never shown');
  });
});
