import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { spawnServer, runServerCommand, type ServerProcess } from './support/process.ts';
import { api } from './support/http.ts';
import { createPostgresDatabase, type TestDatabase } from '../../packages/server/test/support/databases.ts';

const LINES = 3000;
const MODEL = {
  id: 'tiny-1s',
  family: 'B',
  backend: 'renderer',
  resolution: '100p',
  durations: [1],
  aspect_ratios: ['16:9'],
  price: { usd_ticks_per_second: 1000 },
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// A batch's intake survives kill -9 of the worker taking its lines (docs/batch.md, "How a batch
// runs"): another worker claims the batch once the lease runs out and goes on from the lines taken
// so far. No line makes two tasks, every line has one record, and the ledger verifies.
describe('a batch survives kill -9 of the worker taking its lines (PostgreSQL)', () => {
  let database: TestDatabase | string;
  const dirs: string[] = [];
  const processes: ServerProcess[] = [];
  before(async () => {
    database = await createPostgresDatabase();
  });
  after(async () => {
    for (const p of processes) await p.stop('SIGKILL');
    if (typeof database !== 'string') await database.drop();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it('takes every line exactly once', async (t) => {
    if (typeof database === 'string') return t.skip(database);
    const location = (database as TestDatabase).location;
    const dataDir = await mkdtemp(join(tmpdir(), 'vidgen-batch-kill-'));
    dirs.push(dataDir);
    const modelsFile = join(dataDir, 'models.json');
    await writeFile(modelsFile, JSON.stringify({ models: [MODEL] }));
    const env = {
      VIDGEN_DATA_DIR: dataDir,
      VIDGEN_DATABASE_URL: location,
      VIDGEN_MODELS_FILE: modelsFile,
      VIDGEN_SIGNING_SECRET: 'batch-kill',
      VIDGEN_WORKER_CONCURRENCY: '1',
      VIDGEN_RENDER_PRESET: 'ultrafast',
      VIDGEN_LEASE_SECONDS: '3',
      VIDGEN_HEARTBEAT_SECONDS: '1',
      VIDGEN_POLL_MS: '100',
    };
    const created = await runServerCommand(['keys', 'create', '--account', 'kill'], env);
    assert.equal(created.code, 0, created.stderr);
    const key =
      created.stdout
        .trim()
        .split(/\s+/)
        .find((w) => w.startsWith('vg')) ?? created.stdout.trim();
    const apiProcess = await spawnServer({ ...env, VIDGEN_ROLE: 'api' });
    processes.push(apiProcess);
    const client = api(apiProcess.url, key);
    const text = Array.from({ length: LINES }, (_, i) =>
      JSON.stringify({
        custom_id: `l${i}`,
        method: 'POST',
        url: '/v1/video/generations',
        body: { model: 'tiny-1s', prompt: `p${i}` },
      }),
    ).join('\n');
    const form = new FormData();
    form.append('purpose', 'batch');
    form.append('file', new Blob([text]), 'lines.jsonl');
    const file = await (
      await fetch(`${apiProcess.url}/v1/files`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: form,
      })
    ).json();
    assert.match(file.id, /^file-/, JSON.stringify(file));

    const db = new pg.Client({ connectionString: location });
    await db.connect();
    try {
      const batch = (
        await client.post('/v1/batches', {
          input_file_id: file.id,
          endpoint: '/v1/video/generations',
          completion_window: '24h',
        })
      ).body;
      assert.equal(batch.status, 'validating', JSON.stringify(batch));
      const queued = async () =>
        Number((await db.query('SELECT queued FROM batches WHERE id = $1', [batch.id])).rows[0].queued);
      const first = await spawnServer({ ...env, VIDGEN_ROLE: 'worker' });
      processes.push(first);
      while ((await queued()) < 200) await sleep(20);
      await first.stop('SIGKILL');
      const atKill = await queued();
      const second = await spawnServer({ ...env, VIDGEN_ROLE: 'worker' });
      processes.push(second);
      while ((await queued()) < LINES) await sleep(100);
      t.diagnostic(`lines taken when the first worker was killed: ${atKill} of ${LINES}`);

      const counts = (
        await db.query(
          `SELECT count(*) AS tasks, count(DISTINCT idempotency_key) AS keys FROM tasks WHERE batch_id = $1`,
          [batch.id],
        )
      ).rows[0];
      assert.equal(Number(counts.tasks), LINES);
      assert.equal(Number(counts.keys), LINES);
      const lines = (
        await db.query(
          'SELECT count(*) AS lines, count(DISTINCT task_id) AS tasks, min(line) AS first, max(line) AS last FROM batch_lines WHERE batch_id = $1',
          [batch.id],
        )
      ).rows[0];
      assert.deepEqual(
        [Number(lines.lines), Number(lines.tasks), Number(lines.first), Number(lines.last)],
        [LINES, LINES, 0, LINES - 1],
      );
      // The rest need not render: cancelling ends every line.
      assert.equal((await client.post(`/v1/batches/${batch.id}/cancel`)).body.status, 'cancelling');
      let done = batch;
      while (!['cancelled', 'completed'].includes(done.status)) {
        await sleep(200);
        done = (await client.get(`/v1/batches/${batch.id}`)).body;
      }
      assert.equal(done.status, 'cancelled');
      assert.equal(done.request_counts.total, LINES);
      assert.equal(done.request_counts.completed + done.request_counts.failed, LINES);
      const verify = await runServerCommand(['ledger', 'verify'], env);
      assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    } finally {
      await db.end();
    }
  });
});
