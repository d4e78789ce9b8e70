import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService } from './support/service.ts';
import { api, pollUntil } from './support/http.ts';
import { taskBlobFiles } from './support/blob-files.ts';

describe('retention', () => {
  it('expires results: family A says expired, family B content answers 410, the file is gone', async () => {
    const svc = await startTestService({ VIDGEN_RETENTION_SECONDS: '1', VIDGEN_SWEEP_INTERVAL_SECONDS: '0.2' });
    try {
      const client = api(svc.url, await svc.createKey('retention'));
      const b = await client.post('/v1/video/generations', { model: 'video-v1-5s', prompt: 'desert dunes' });
      const id = b.body.task_id;
      await pollUntil(
        () => client.get(`/v1/video/generations/${id}`),
        (a) => a.body.status === 'SUCCESS',
      );
      const expired = await pollUntil(
        () => client.get(`/v1/videos/${id}`),
        (a) => a.body.status === 'expired',
        10_000,
      );
      assert.equal(expired.status, 200);
      assert.equal(expired.body.video, undefined);
      const familyB = await client.get(`/v1/video/generations/${id}`);
      assert.equal(familyB.body.result_url, undefined);
      // Family B has no word for it: the status stays SUCCESS with vidgen's `expired: true`.
      assert.equal(familyB.body.status, 'SUCCESS');
      assert.equal(familyB.body.expired, true);
      const content = await client.get(`/v1/videos/${id}/content`);
      assert.equal(content.status, 410);
      assert.equal(content.body.error.code, 'video_expired');
      // The sweeper marks the task expired first and deletes its files next (one statement marks,
      // so with many processes one sweeper takes each task): the files go just after the status.
      const files = async () => ({
        status: 200,
        headers: new Headers(),
        body: (await taskBlobFiles(svc.dataDir, id)).files,
      });
      const left = await pollUntil(files, (a) => a.body.length === 0, 10_000);
      assert.deepEqual(left.body, []);
    } finally {
      await svc.close();
    }
  });
});
