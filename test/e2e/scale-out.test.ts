import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer, runServerCommand, type ServerProcess } from './support/process.ts';
import { api, pollUntil } from './support/http.ts';
import { createPostgresDatabase, type TestDatabase } from '../../packages/server/test/support/databases.ts';
import { startS3Server, type TestS3Server } from '../../packages/server/test/support/s3-server.ts';
import { openSqlDatabase } from '../../packages/server/src/store/sql/database.ts';
import { SqlTaskStore } from '../../packages/server/src/store/sql/sql-task-store.ts';

// The scale-out layout: two API processes and two worker processes sharing nothing but
// PostgreSQL and S3 (each has its own data dir). 200 tasks from 4 accounts, one of which
// submits 150 first: everything succeeds, and the small accounts are served within a slot
// or so of submitting, not after the big backlog.
describe('scale-out: 2 API + 2 worker processes on PostgreSQL and S3', () => {
  let database: TestDatabase | string;
  let s3: TestS3Server | string;
  const dirs: string[] = [];
  const processes: ServerProcess[] = [];
  const SLOTS_PER_WORKER = 2;

  before(async () => {
    [database, s3] = await Promise.all([createPostgresDatabase(), startS3Server('vidgen-scale')]);
  });
  after(async () => {
    for (const p of processes) await p.stop();
    if (typeof database !== 'string') await database.drop();
    if (typeof s3 !== 'string') await s3.close();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it('runs 200 tasks from 4 accounts fairly, all verified and stored in S3', async (t) => {
    if (typeof database === 'string') return t.skip(database);
    if (typeof s3 === 'string') return t.skip(s3);
    const catalogDir = await mkdtemp(join(tmpdir(), 'vidgen-scale-'));
    dirs.push(catalogDir);
    const modelsFile = join(catalogDir, 'models.json');
    await writeFile(
      modelsFile,
      JSON.stringify({
        models: [
          {
            id: 'tiny-1s',
            family: 'B',
            backend: 'renderer',
            resolution: '144p',
            durations: [1],
            aspect_ratios: ['16:9'],
          },
        ],
      }),
    );
    const env = async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'vidgen-scale-node-'));
      dirs.push(dataDir);
      const store = s3 as TestS3Server;
      return {
        VIDGEN_DATA_DIR: dataDir,
        VIDGEN_DATABASE_URL: (database as TestDatabase).location,
        VIDGEN_MODELS_FILE: modelsFile,
        VIDGEN_S3_BUCKET: store.bucket,
        VIDGEN_S3_ENDPOINT: store.endpoint,
        VIDGEN_S3_REGION: store.region,
        VIDGEN_S3_FORCE_PATH_STYLE: '1',
        AWS_ACCESS_KEY_ID: store.credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: store.credentials.secretAccessKey,
        VIDGEN_SIGNING_SECRET: 'scale-out-secret',
        VIDGEN_WORKER_CONCURRENCY: String(SLOTS_PER_WORKER),
        VIDGEN_LOG_LEVEL: 'info',
      };
    };
    const keys: string[] = [];
    for (const name of ['big', 'small-1', 'small-2', 'small-3']) {
      keys.push((await runServerCommand(['keys', 'create', '--account', name], await env())).stdout.trim());
    }
    const apis = [await spawnServer(await env(), ['--role', 'api']), await spawnServer(await env(), ['--role', 'api'])];
    processes.push(...apis);
    const submit = (account: number, i: number) =>
      api(apis[i % 2].url, keys[account]).post('/v1/video/generations', {
        model: 'tiny-1s',
        prompt: `task ${account}-${i}`,
      });

    // The big account's backlog is queued before any worker runs.
    const big = await Promise.all(Array.from({ length: 150 }, (_, i) => submit(0, i)));
    for (const a of big) assert.equal(a.status, 200, JSON.stringify(a.body));
    processes.push(
      await spawnServer(await env(), ['--role', 'worker']),
      await spawnServer(await env(), ['--role', 'worker']),
    );
    await pollUntil(
      () => api(apis[0].url, keys[0]).get(`/v1/video/generations/${big[10].body.task_id}`),
      (a) => a.body.status === 'SUCCESS',
    );
    const small: Array<{ account: number; id: string }> = [];
    for (let i = 0; i < 50; i++) {
      const account = 1 + (i % 3);
      small.push({ account, id: (await submit(account, i)).body.task_id });
    }

    const ids = [...big.map((a) => ({ account: 0, id: a.body.task_id as string })), ...small];
    for (const { account, id } of ids) {
      const done = await pollUntil(
        () => api(apis[1].url, keys[account]).get(`/v1/video/generations/${id}`),
        (a) => ['SUCCESS', 'FAILURE'].includes(a.body.status),
      );
      assert.equal(done.body.status, 'SUCCESS', JSON.stringify(done.body));
    }

    // Fairness, counted rather than timed: when a small account's first task started, how many
    // big-account tasks had started since it was submitted? Bounded by the slots, not the backlog.
    const db = await openSqlDatabase((database as TestDatabase).location);
    try {
      const tasks = new SqlTaskStore(db.db, db.dialect);
      const all = await Promise.all(ids.map(async ({ account, id }) => ({ account, task: (await tasks.get(id))! })));
      const bigStarts = all.filter((x) => x.account === 0).map((x) => x.task.startedAt!);
      const slots = 2 * SLOTS_PER_WORKER;
      for (const account of [1, 2, 3]) {
        const first = all
          .filter((x) => x.account === account)
          .map((x) => x.task)
          .sort((a, b) => a.createdAt - b.createdAt)[0];
        const overtaken = bigStarts.filter((s) => s > first.createdAt && s < first.startedAt!).length;
        assert.ok(
          overtaken <= slots,
          `account ${account}: ${overtaken} big tasks started before its first task (slots ${slots})`,
        );
      }
      const smallWaits = all.filter((x) => x.account !== 0).map((x) => x.task.startedAt! - x.task.createdAt);
      const firstSmallSubmit = Math.min(...all.filter((x) => x.account !== 0).map((x) => x.task.createdAt));
      const bigBacklog = bigStarts.filter((s) => s > firstSmallSubmit).length;
      t.diagnostic(
        `small-account queue wait max ${Math.max(...smallWaits)} ms; big-account backlog when they submitted: ${bigBacklog} tasks`,
      );
    } finally {
      await db.close();
    }

    // Downloads go to S3 by a presigned redirect; the bytes are a real MP4.
    const res = await fetch(`${apis[0].url}/v1/videos/${small[0].id}/content`, {
      headers: { authorization: `Bearer ${keys[small[0].account]}` },
      redirect: 'manual',
    });
    assert.equal(res.status, 302);
    const video = await fetch(res.headers.get('location')!);
    assert.equal(video.status, 200);
    assert.equal(video.headers.get('content-type'), 'video/mp4');
    assert.equal(
      Buffer.from(await video.arrayBuffer())
        .subarray(4, 8)
        .toString('latin1'),
      'ftyp',
    );
  });
});
