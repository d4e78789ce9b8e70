import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestService } from './support/service.ts';
import { api, pollUntil } from './support/http.ts';
import { openSqlDatabase } from '../../packages/server/src/store/sql/database.ts';
import { SqlTaskStore } from '../../packages/server/src/store/sql/sql-task-store.ts';
import { videoKey } from '../../packages/server/src/engine/video-variants.ts';

// A worker that stops renewing its lease (stalled, partitioned) keeps rendering; another
// worker takes the task over. The zombie's late completion must be refused and change nothing.
it("refuses a zombie worker's late completion and keeps exactly the new owner's video", async () => {
  const zombie = await startTestService({
    VIDGEN_LEASE_SECONDS: '1',
    VIDGEN_HEARTBEAT_SECONDS: '3600',
    VIDGEN_WORKER_CONCURRENCY: '1',
  });
  const client = api(zombie.url, await zombie.createKey('zombie'));
  const id = (
    await client.post('/v1/video/generations', {
      model: 'video-v1-15s',
      prompt: 'night city, slow push in',
      ratio: '1:1',
    })
  ).body.task_id;
  await pollUntil(
    () => client.get(`/v1/video/generations/${id}`),
    (a) => a.body.progress > 0,
  );
  const rescuer = await startTestService({
    VIDGEN_DATA_DIR: zombie.dataDir,
    VIDGEN_ROLE: 'worker',
    VIDGEN_LEASE_SECONDS: '1',
    VIDGEN_HEARTBEAT_SECONDS: '0.2',
  });
  try {
    const done = await pollUntil(
      () => client.get(`/v1/video/generations/${id}`),
      (a) => ['SUCCESS', 'FAILURE'].includes(a.body.status),
    );
    assert.equal(done.body.status, 'SUCCESS');
    // Wait for the zombie to finish its own render and try to complete: every attempt removes
    // its work directory when it ends.
    const workDir = join(zombie.dataDir, 'work');
    for (let i = 0; (await readdir(workDir)).length > 0; i++) {
      assert.ok(i < 600, 'the zombie attempt never ended');
      await new Promise((r) => setTimeout(r, 100));
    }
    const database = await openSqlDatabase(join(zombie.dataDir, 'vidgen.db'));
    const tasks = new SqlTaskStore(database.db, database.dialect);
    const task = await tasks.get(id);
    const attempts = await tasks.attempts(id);
    await database.close();
    assert.deepEqual(
      attempts.map((a) => a.outcome),
      ['lease_expired', 'succeeded'],
    );
    const owner = attempts[1].attempt;
    assert.equal(task?.result?.blobKey, videoKey(id, owner), 'the served file is the new owner’s');
    const dir = join(zombie.dataDir, 'blobs', videoKey(id, owner), '..');
    const kept = (await readdir(dir)).filter((name) => name.startsWith(id)).sort();
    assert.deepEqual(
      kept,
      [`${id}.${owner}.mp4`, `${id}.${owner}.spritesheet.jpg`, `${id}.${owner}.thumbnail.webp`],
      'the zombie’s files were discarded',
    );
  } finally {
    await rescuer.close();
    await zombie.close();
  }
});
