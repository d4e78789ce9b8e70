import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from './support/service.ts';
import { api, pollUntil, type Api } from './support/http.ts';
import { dataUri, makeImage, startImageServer } from './support/images.ts';
import { downloadAndProbe } from './support/video.ts';

// Family B end to end: text-to-video and image-to-video (`image`, `images`), each ratio,
// case-sensitive states, and the content endpoint with the Bearer key.
describe('family B journey', () => {
  let svc: TestService;
  let images: Awaited<ReturnType<typeof startImageServer>>;
  let key: string;
  let client: Api;
  before(async () => {
    svc = await startTestService();
    images = await startImageServer();
    key = await svc.createKey('family-b');
    client = api(svc.url, key);
  });
  after(async () => {
    await svc.close();
    await images.close();
  });

  const cases = [
    { name: 'text only, 16:9', body: () => ({ ratio: '16:9' }), size: [1280, 720] },
    { name: 'image URL, 9:16', body: () => ({ ratio: '9:16', image: `${images.url}/photo.jpg` }), size: [720, 1280] },
    {
      name: 'images (URL + data URI), 1:1',
      body: async () => ({
        ratio: '1:1',
        images: [`${images.url}/photo.png`, dataUri(await makeImage(200, 200), 'image/png')],
      }),
      size: [720, 720],
    },
    { name: 'default ratio', body: () => ({}), size: [1280, 720] },
  ];

  for (const c of cases) {
    it(`renders ${c.name}`, async () => {
      const submit = await client.post('/v1/video/generations', {
        model: 'video-v1-5s',
        prompt: 'sunset over the ocean, pan left',
        ...(await c.body()),
      });
      assert.equal(submit.status, 200, JSON.stringify(submit.body));
      assert.equal(submit.body.status, 'queued');
      assert.equal(submit.body.seconds, '5');
      const id = submit.body.task_id;
      const seen = new Set<string>();
      const done = await pollUntil(
        () => client.get(`/v1/video/generations/${id}`),
        (a) => {
          seen.add(a.body.status);
          return a.body.status === 'SUCCESS' || a.body.status === 'FAILURE';
        },
      );
      for (const s of seen) assert.ok(['queued', 'IN_PROGRESS', 'SUCCESS'].includes(s), `state ${s}`);
      assert.equal(done.status, 200);
      assert.equal(done.body.status, 'SUCCESS', JSON.stringify(done.body));
      assert.equal(done.body.task_id, id);
      assert.equal(done.body.seconds, '5');
      assert.equal(done.body.progress, 100);
      assert.equal(done.body.result_url, `/v1/videos/${id}/content`);
      const { probe } = await downloadAndProbe(`${svc.url}${done.body.result_url}`, { authorization: `Bearer ${key}` });
      assert.equal(probe.codec, 'h264');
      assert.deepEqual([probe.width, probe.height], c.size);
      assert.ok(Math.abs(probe.durationSeconds - 5) < 0.1, `duration ${probe.durationSeconds}`);
    });
  }

  it('renders the 10 s and 15 s models at their length', async () => {
    for (const [model, seconds] of [
      ['video-v1-10s', 10],
      ['video-v1-15s', 15],
    ] as const) {
      const submit = await client.post('/v1/video/generations', { model, prompt: 'city at night' });
      assert.equal(submit.body.seconds, String(seconds));
      const done = await pollUntil(
        () => client.get(`/v1/video/generations/${submit.body.task_id}`),
        (a) => a.body.status === 'SUCCESS' || a.body.status === 'FAILURE',
      );
      assert.equal(done.body.status, 'SUCCESS');
      const { probe } = await downloadAndProbe(`${svc.url}${done.body.result_url}`, { authorization: `Bearer ${key}` });
      assert.ok(Math.abs(probe.durationSeconds - seconds) < 0.1);
    }
  });

  it('reports FAILURE with the reason when the image is not reachable', async () => {
    const submit = await client.post('/v1/video/generations', {
      model: 'video-v1-5s',
      prompt: 'p',
      image: `${images.url}/gone.png`,
    });
    const end = await pollUntil(
      () => client.get(`/v1/video/generations/${submit.body.task_id}`),
      (a) => a.body.status === 'SUCCESS' || a.body.status === 'FAILURE',
    );
    assert.equal(end.body.status, 'FAILURE');
    assert.equal(end.body.error.code, 'image_unreachable');
    assert.equal(end.body.result_url, undefined);
    const content = await client.get(`/v1/videos/${submit.body.task_id}/content`);
    assert.equal(content.status, 409);
    assert.equal(content.body.error.code, 'video_not_ready');
  });
});
