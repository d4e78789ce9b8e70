/**
 * docs/relays.md §3.9, through the public API: when the engine's deadline stops a relayed task whose
 * upstream can cancel, the upstream job is canceled and the deadline is final. The task fails with
 * `deadline_exceeded` after one attempt: no retry follows the canceled job (which would end as a
 * confusing `upstream_failed`), and no second upstream job is ordered.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReplicateStandin } from '../../packages/server/test/support/hosted-standins.ts';
import { startTestService } from './support/service.ts';
import { api, pollUntil } from './support/http.ts';
import { openSqlDatabase } from '../../packages/server/src/store/sql/database.ts';
import { SqlTaskStore } from '../../packages/server/src/store/sql/sql-task-store.ts';

const MODEL = 'kwaivgi/kling-v2.1';

it('a relayed task stopped at its deadline cancels the upstream prediction and fails for good, with one upstream job', async () => {
  // A prediction that never finishes: only the deadline can end the attempt.
  const replicate = await ReplicateStandin.start({
    key: 'r8_e2e_deadline',
    models: [MODEL],
    pendingPolls: Number.MAX_SAFE_INTEGER,
  });
  const dir = await mkdtemp(join(tmpdir(), 'vidgen-relay-deadline-'));
  await writeFile(
    join(dir, 'backends.json'),
    JSON.stringify({
      backends: {
        'relay-replicate': {
          type: 'relay',
          deadline_seconds: 2,
          channels: [
            {
              name: 'replicate',
              dialect: 'replicate',
              base_url: replicate.url,
              api_key_env: 'TEST_REPLICATE_KEY',
              models: { 'kling-720p-5s': MODEL },
              poll_interval_seconds: 0.1,
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
          id: 'kling-720p-5s',
          family: 'A',
          backend: 'relay-replicate',
          resolution: '720p',
          durations: [5],
          aspect_ratios: ['16:9'],
        },
      ],
    }),
  );
  const front = await startTestService({
    VIDGEN_BACKENDS_FILE: join(dir, 'backends.json'),
    VIDGEN_MODELS_FILE: join(dir, 'models.json'),
    TEST_REPLICATE_KEY: 'r8_e2e_deadline',
  });
  try {
    const client = api(front.url, await front.createKey('customer'));
    const submit = await client.post('/v1/videos/generations', {
      model: 'kling-720p-5s',
      prompt: 'a harbour at dawn',
      duration: 5,
      aspect_ratio: '16:9',
    });
    assert.equal(submit.status, 200, JSON.stringify(submit.body));
    const end = await pollUntil(
      () => client.get(`/v1/videos/${submit.body.request_id}`),
      (a) => a.body.status !== 'pending',
    );
    assert.equal(end.body.status, 'failed', JSON.stringify(end.body));
    assert.equal(end.body.error.code, 'deadline_exceeded');
    assert.match(end.body.error.message, /canceled and is not retried/);
    assert.equal(replicate.jobs.length, 1, 'exactly one upstream prediction');
    assert.equal(replicate.jobs[0].canceled, true, 'the prediction was canceled upstream');
    // One attempt, ended by the deadline: the engine took the relay's word that it is final.
    assert.deepEqual(await endedAttempts(front.dataDir, submit.body.request_id), [
      { outcome: 'failed', errorCode: 'deadline_exceeded' },
    ]);
  } finally {
    await front.close();
    await replicate.close();
    await rm(dir, { recursive: true, force: true });
  }
});

/** How each attempt of a task ended, once all have (the row is written just after the task's). */
async function endedAttempts(dataDir: string, id: string) {
  const database = await openSqlDatabase(join(dataDir, 'vidgen.db'));
  try {
    const tasks = new SqlTaskStore(database.db, database.dialect);
    let attempts = await tasks.attempts(id);
    for (let i = 0; i < 100 && attempts.some((a) => a.outcome === null); i++) {
      await new Promise((r) => setTimeout(r, 100));
      attempts = await tasks.attempts(id);
    }
    return attempts.map((a) => ({ outcome: a.outcome, errorCode: a.errorCode }));
  } finally {
    await database.close();
  }
}
