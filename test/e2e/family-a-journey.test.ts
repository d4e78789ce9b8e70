import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openSqlDatabase } from '../../packages/server/src/store/sql/database.ts';
import { SqlTaskStore } from '../../packages/server/src/store/sql/sql-task-store.ts';
import { startTestService, type TestService } from './support/service.ts';
import { api, pollUntil, type Api } from './support/http.ts';
import { dataUri, makeImage, startImageServer } from './support/images.ts';
import { downloadAndProbe } from './support/video.ts';

// Family A end to end: submit → 202 while pending → 200 done with an absolute signed URL →
// an MP4 of the requested size and duration, downloaded without the API key.
describe('family A journey', () => {
  let svc: TestService;
  let images: Awaited<ReturnType<typeof startImageServer>>;
  let client: Api;
  before(async () => {
    svc = await startTestService();
    images = await startImageServer();
    client = api(svc.url, await svc.createKey('family-a'));
  });
  after(async () => {
    await svc.close();
    await images.close();
  });

  const cases = [
    {
      name: 'image URL, 720p 16:9',
      model: 'vx-imagine-video-1.5-720p',
      ratio: '16:9',
      size: [1280, 720],
      duration: 2,
      image: () => ({ url: `${images.url}/photo.png` }),
    },
    {
      name: 'JPEG URL, 720p 9:16',
      model: 'vx-imagine-video-1.5-720p',
      ratio: '9:16',
      size: [720, 1280],
      duration: 1,
      image: () => ({ url: `${images.url}/photo.jpg` }),
    },
    {
      name: 'data URI, 1080p 1:1',
      model: 'vx-imagine-video-1.5-1080p',
      ratio: '1:1',
      size: [1080, 1080],
      duration: 1,
      image: async () => ({ url: dataUri(await makeImage(640, 480, 'jpeg'), 'image/jpeg') }),
    },
    {
      name: 'data URI, 1080p 4:3',
      model: 'vx-imagine-video-1.5-1080p',
      ratio: '4:3',
      size: [1440, 1080],
      duration: 1,
      image: async () => ({ url: dataUri(await makeImage(300, 300), 'image/png') }),
    },
  ];

  for (const c of cases) {
    it(`renders ${c.name}`, async () => {
      const submit = await client.post('/v1/videos/generations', {
        model: c.model,
        prompt: 'slow zoom in on the scene',
        image: await c.image(),
        duration: c.duration,
        aspect_ratio: c.ratio,
      });
      assert.equal(submit.status, 200, JSON.stringify(submit.body));
      const id = submit.body.request_id;
      const first = await client.get(`/v1/videos/${id}`);
      if (first.body.status === 'pending') {
        assert.equal(first.status, 202);
        assert.equal(typeof first.body.progress, 'number');
        assert.equal(first.body.video, undefined);
      }
      const done = await pollUntil(
        () => client.get(`/v1/videos/${id}`),
        (a) => a.body.status !== 'pending',
      );
      assert.equal(done.status, 200);
      assert.equal(done.body.status, 'done', JSON.stringify(done.body));
      assert.equal(done.body.model, c.model.replace(/-\d+p$/, ''));
      assert.equal(done.body.progress, 100);
      assert.equal(done.body.video.duration, c.duration);
      assert.match(
        done.body.video.url,
        /^http:\/\/127\.0\.0\.1:\d+\/v1\/videos\/.+\/content\?expires=\d+&kid=.+&sig=.+$/,
      );
      const { res, probe, bytes } = await downloadAndProbe(done.body.video.url);
      assert.equal(res.headers.get('content-type'), 'video/mp4');
      assert.equal(Number(res.headers.get('content-length')), bytes.length);
      assert.equal(probe.codec, 'h264');
      assert.equal(probe.pixelFormat, 'yuv420p');
      assert.deepEqual([probe.width, probe.height], c.size);
      assert.ok(Math.abs(probe.durationSeconds - c.duration) < 0.1, `duration ${probe.durationSeconds}`);
    });
  }

  it('fails a task whose image URL cannot be fetched, with a message saying so', async () => {
    const submit = await client.post('/v1/videos/generations', {
      model: 'vx-imagine-video-1.5-720p',
      prompt: 'p',
      image: { url: `${images.url}/missing.png` },
      duration: 1,
    });
    const end = await pollUntil(
      () => client.get(`/v1/videos/${submit.body.request_id}`),
      (a) => a.body.status !== 'pending',
    );
    assert.equal(end.status, 200);
    assert.equal(end.body.status, 'failed');
    assert.equal(end.body.error.code, 'image_unreachable');
    assert.match(end.body.error.message, /could not be fetched by the server/);
    assert.equal(end.body.video, undefined);
    assert.deepEqual(
      await endedAttempts(submit.body.request_id),
      [{ outcome: 'failed', errorCode: 'image_unreachable' }],
      'the attempt records why it failed',
    );
  });

  /** How each attempt of a task ended, once all have (the row is written just after the task's). */
  async function endedAttempts(id: string) {
    const database = await openSqlDatabase(join(svc.dataDir, 'vidgen.db'));
    try {
      const tasks = new SqlTaskStore(database.db, database.dialect);
      const deadline = Date.now() + 10_000;
      let attempts = await tasks.attempts(id);
      while (attempts.some((a) => a.outcome === null) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        attempts = await tasks.attempts(id);
      }
      return attempts.map((a) => ({ outcome: a.outcome, errorCode: a.errorCode }));
    } finally {
      await database.close();
    }
  }
});
