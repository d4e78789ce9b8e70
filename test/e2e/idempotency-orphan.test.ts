import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startTestService, type TestService } from './support/service.ts';
import { api } from './support/http.ts';
import { openSqlDatabase, type SqlDatabase } from '../../packages/server/src/store/sql/database.ts';
import { requestFingerprint } from '../../packages/server/src/engine/request-fingerprint.ts';

// A process that crashed between reserving an Idempotency-Key and inserting its task leaves a
// reservation without a task (the insert and the binding are one transaction). A retry must
// succeed within seconds, not after a minute of 409s, and still create exactly one task.
describe('an Idempotency-Key reservation orphaned by a crash', () => {
  let svc: TestService;
  let db: SqlDatabase;
  before(async () => {
    svc = await startTestService();
    db = await openSqlDatabase(join(svc.dataDir, 'vidgen.db'));
  });
  after(async () => {
    await db?.close();
    await svc?.close();
  });

  it('is taken over by the retry within seconds, and the key makes one task', async () => {
    const client = api(svc.url, await svc.createKey('orphan'));
    const body = { model: 'video-v1-5s', prompt: 'after a crash' };
    const account = await db.db
      .selectFrom('accounts')
      .select('id')
      .where('name', '=', 'orphan')
      .executeTakeFirstOrThrow();
    // What the crashed request left: its reservation, made just now, with no task.
    await db.db
      .insertInto('idempotency_keys')
      .values({
        account_id: account.id,
        key: 'crashed-1',
        request_hash: requestFingerprint('/v1/video/generations', body),
        task_id: null,
        created_at: Date.now(),
      })
      .execute();
    const started = Date.now();
    let answer = await client.post('/v1/video/generations', body, { 'idempotency-key': 'crashed-1' });
    let conflicts = 0;
    while (answer.status === 409) {
      conflicts++;
      assert.ok(Number(answer.headers.get('retry-after')) > 0, 'a 409 says when to retry');
      await new Promise((r) => setTimeout(r, Number(answer.headers.get('retry-after')) * 1000));
      answer = await client.post('/v1/video/generations', body, { 'idempotency-key': 'crashed-1' });
    }
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    // The old rule answered 409 for 60 s (60 retries at Retry-After 1); a dead reservation now goes stale in 5 s.
    assert.ok(conflicts < 30, `recovered after ${conflicts} retries (${Date.now() - started} ms), not after a minute`);
    const again = await client.post('/v1/video/generations', body, { 'idempotency-key': 'crashed-1' });
    assert.equal(again.body.task_id, answer.body.task_id, 'the key replays its one task');
    const tasks = await db.db.selectFrom('tasks').select('id').where('idempotency_key', '=', 'crashed-1').execute();
    assert.equal(tasks.length, 1);
  });
});
