import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startTestService, type TestService } from './support/service.ts';
import { api, type Api } from './support/http.ts';
import { openSqlDatabase } from '../../packages/server/src/store/sql/database.ts';
import { SqlTaskStore } from '../../packages/server/src/store/sql/sql-task-store.ts';
import { requestFingerprint } from '../../packages/server/src/engine/request-fingerprint.ts';

// What a client needs to never pay twice and never lose a task: Idempotency-Key on creates,
// a listing to look tasks up after a time-out, and long-polls. Workers are off (role api).
describe('idempotency and lookup', () => {
  let svc: TestService;
  let client: Api;
  const B = { model: 'video-v1-5s', prompt: 'a red kite' };
  const A = {
    model: 'vx-imagine-video-1.5-720p',
    prompt: 'zoom in',
    image: { url: 'https://example.com/a.png' },
    duration: 2,
  };

  before(async () => {
    svc = await startTestService({ VIDGEN_ROLE: 'api' });
    client = api(svc.url, await svc.createKey('idem'));
  });
  after(() => svc.close());

  it('replays the first answer for the same key and body, in both families', async () => {
    for (const [path, body, idField] of [
      ['/v1/video/generations', B, 'task_id'],
      ['/v1/videos/generations', A, 'request_id'],
    ] as const) {
      const headers = { 'idempotency-key': `replay-${path}` };
      const first = await client.post(path, body, headers);
      assert.equal(first.status, 200);
      assert.equal(first.headers.get('idempotent-replayed'), null);
      const again = await client.post(path, { ...body }, headers);
      assert.equal(again.status, 200);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(again.body, first.body);
      assert.ok(first.body[idField]);
    }
  });

  it('treats the same fields in another order as the same body', async () => {
    const headers = { 'idempotency-key': 'order' };
    const first = await client.post(
      '/v1/video/generations',
      '{"model":"video-v1-5s","prompt":"p","ratio":"1:1"}',
      headers,
    );
    const again = await client.post(
      '/v1/video/generations',
      '{"ratio":"1:1","prompt":"p","model":"video-v1-5s"}',
      headers,
    );
    assert.equal(again.body.task_id, first.body.task_id);
  });

  it('refuses the same key with a different body with 422', async () => {
    const headers = { 'idempotency-key': 'reused' };
    await client.post('/v1/video/generations', B, headers);
    const res = await client.post('/v1/video/generations', { ...B, prompt: 'something else' }, headers);
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, 'idempotency_key_reused');
  });

  it('answers 409 with Retry-After while the first request is still being created', async () => {
    // Reserve the key as a first request would, as if it were still running in another process.
    const database = await openSqlDatabase(join(svc.dataDir, 'vidgen.db'));
    const accountId = (
      await database.db.selectFrom('accounts').select('id').where('name', '=', 'idem').executeTakeFirstOrThrow()
    ).id;
    const tasks = new SqlTaskStore(database.db, database.dialect);
    await tasks.reserveIdempotencyKey(
      { accountId, key: 'in-flight', requestHash: requestFingerprint('/v1/video/generations', B) },
      Date.now(),
      0,
    );
    await database.close();
    const res = await client.post('/v1/video/generations', B, { 'idempotency-key': 'in-flight' });
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'idempotency_in_flight');
    assert.ok(Number(res.headers.get('retry-after')) >= 1);
  });

  it('frees the key when the first request was refused, so a corrected retry can use it', async () => {
    const headers = { 'idempotency-key': 'after-error' };
    assert.equal((await client.post('/v1/video/generations', { ...B, ratio: '4:3' }, headers)).status, 400);
    assert.equal(
      (await client.post('/v1/video/generations', { ...B, ratio: '4:3' }, headers)).status,
      400,
      'a refused request is not stored',
    );
    assert.equal((await client.post('/v1/video/generations', B, headers)).status, 200);
  });

  it('makes one task from 50 concurrent identical submits', async () => {
    const headers = { 'idempotency-key': 'stampede' };
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => client.post('/v1/video/generations', B, headers)),
    );
    const ids = new Set(answers.filter((a) => a.status === 200).map((a) => a.body.task_id));
    for (const a of answers) assert.ok(a.status === 200 || a.status === 409, `status ${a.status}`);
    assert.equal(ids.size, 1);
    const listed = await client.get('/v1/video/generations?idempotency_key=stampede');
    assert.equal(listed.body.data.length, 1);
    assert.equal(listed.body.data[0].task_id, [...ids][0]);
    assert.equal(listed.body.data[0].idempotency_key, 'stampede');
  });

  it('lists only the caller’s tasks of each family, newest first, with filters', async () => {
    const other = api(svc.url, await svc.createKey('lister-b'));
    const mine = api(svc.url, await svc.createKey('lister-a'));
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (await mine.post('/v1/video/generations', { ...B, model: i === 2 ? 'video-v1-10s' : 'video-v1-5s' })).body
          .task_id,
      );
    await mine.post('/v1/videos/generations', A);
    await other.post('/v1/video/generations', B);
    const page = await mine.get('/v1/video/generations');
    assert.equal(page.status, 200);
    assert.equal(page.body.object, 'list');
    assert.deepEqual(
      page.body.data.map((t: { task_id: string }) => t.task_id),
      [...ids].reverse(),
    );
    assert.equal(page.body.has_more, false);
    assert.equal(typeof page.body.data[0].created_at, 'number');
    // Answers are serialized from the route schemas: a field they forgot would vanish here.
    assert.equal(page.body.data[0].idempotency_key, null);
    assert.equal(page.body.last_id, ids[0]);
    assert.equal(page.body.data[0].status, 'queued');
    assert.deepEqual(
      (await mine.get('/v1/video/generations?model=video-v1-10s')).body.data.map((t: { task_id: string }) => t.task_id),
      [ids[2]],
    );
    assert.equal((await mine.get('/v1/video/generations?status=queued')).body.data.length, 3);
    assert.equal((await mine.get('/v1/video/generations?status=SUCCESS')).body.data.length, 0);
    assert.equal(
      (await mine.get(`/v1/video/generations?created_after=${Math.floor(Date.now() / 1000) + 60}`)).body.data.length,
      0,
    );
    const familyA = await mine.get('/v1/videos');
    assert.equal(familyA.body.data.length, 1);
    assert.equal(familyA.body.data[0].status, 'pending');
    for (const bad of ['limit=0', 'limit=101', 'status=done', 'created_after=soon']) {
      const res = await mine.get(`/v1/video/generations?${bad}`);
      assert.equal(res.status, 400, bad);
      assert.equal(res.body.error.param, bad.split('=')[0]);
    }
    const unauthenticated = await api(svc.url).get('/v1/video/generations');
    assert.deepEqual(Object.keys(unauthenticated.body.error), ['message', 'type', 'code', 'param']);
    assert.equal(unauthenticated.body.error.param, null);
  });

  it('paginates stably while tasks are being created', async () => {
    const pager = api(svc.url, await svc.createKey('pager'));
    const created: string[] = [];
    for (let i = 0; i < 7; i++) created.push((await pager.post('/v1/video/generations', B)).body.task_id);
    const seen: string[] = [];
    let after: string | null = null;
    let extra = 0;
    do {
      const page: { body: any } = await pager.get(`/v1/video/generations?limit=3${after ? `&after=${after}` : ''}`);
      seen.push(...page.body.data.map((t: { task_id: string }) => t.task_id));
      after = page.body.has_more ? page.body.last_id : null;
      // New tasks arrive between pages: they are newer than the cursor and must not shift it.
      await pager.post('/v1/video/generations', B);
      extra++;
    } while (after);
    assert.deepEqual(seen, [...created].reverse());
    assert.ok(extra >= 3);
  });

  it('refuses a wait longer than 60 s', async () => {
    const id = (await client.post('/v1/video/generations', B)).body.task_id;
    const res = await client.get(`/v1/video/generations/${id}?wait=61`);
    assert.equal(res.status, 400);
    assert.equal(res.body.error.param, 'wait');
  });
});

describe('long-poll', () => {
  it('answers as soon as the state or progress changes, and at once for a finished task', async () => {
    const svc = await startTestService({ VIDGEN_POLL_MS: '5000' });
    try {
      const client = api(svc.url, await svc.createKey('long-poll'));
      const id = (await client.post('/v1/video/generations', { model: 'video-v1-15s', prompt: 'rain on a window' }))
        .body.task_id;
      let last = (await client.get(`/v1/video/generations/${id}`)).body;
      let changes = 0;
      while (last.status !== 'SUCCESS') {
        const started = Date.now();
        const next = await client.get(`/v1/video/generations/${id}?wait=30`);
        assert.equal(next.status, 200);
        assert.ok(Date.now() - started < 29_000, 'answered before the deadline because something changed');
        assert.ok(next.body.status !== last.status || next.body.progress !== last.progress);
        last = next.body;
        changes++;
      }
      assert.ok(changes >= 2, `saw ${changes} changes`);
      const started = Date.now();
      const done = await client.get(`/v1/videos/${id}?wait=30`);
      assert.equal(done.body.status, 'done');
      assert.ok(Date.now() - started < 5000, 'a finished task answers at once');
    } finally {
      await svc.close();
    }
  });

  it('answers at the deadline when nothing changes', async () => {
    const svc = await startTestService({ VIDGEN_ROLE: 'api' });
    try {
      const client = api(svc.url, await svc.createKey('deadline'));
      const id = (
        await client.post('/v1/videos/generations', {
          model: 'vx-imagine-video-1.5-720p',
          prompt: 'p',
          image: { url: 'https://example.com/a.png' },
          duration: 1,
        })
      ).body.request_id;
      const started = Date.now();
      const res = await client.get(`/v1/videos/${id}?wait=1`);
      assert.equal(res.status, 202);
      assert.equal(res.body.status, 'pending');
      assert.ok(Date.now() - started >= 900);
      assert.equal(res.headers.get('retry-after'), '4');
    } finally {
      await svc.close();
    }
  });
});
