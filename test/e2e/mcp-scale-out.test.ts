import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createPostgresDatabase, type TestDatabase } from '../../packages/server/test/support/databases.ts';
import { spawnServer, runServerCommand, type ServerProcess } from './support/process.ts';
import { downloadAndProbe } from './support/video.ts';
import { CallToolResultSchema, connectMcp, createAsTask } from './support/mcp-clients.ts';

const RECORD_MODULES = pathToFileURL(join(import.meta.dirname, 'support', 'record-modules.mjs')).href;

// MCP tasks are task rows: on PostgreSQL, a task made through one API process is read, waited
// for and cancelled through another (the transport is stateless; no session ties a client to a
// process). The worker runs in a process of its own, as in a scaled-out deployment.
describe('MCP across API processes (PostgreSQL)', () => {
  let database: TestDatabase | string;
  let dataDir: string;
  const processes: ServerProcess[] = [];
  const clients: Client[] = [];

  before(async () => {
    database = await createPostgresDatabase();
    dataDir = await mkdtemp(join(tmpdir(), 'vidgen-mcp-scale-'));
  });
  after(async () => {
    for (const client of clients) await client.close();
    for (const p of processes) await p.stop();
    if (typeof database !== 'string') await database.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('a task made through one API process is read and its result taken through the other', async (t) => {
    if (typeof database === 'string') return t.skip(database);
    const models = [
      { id: 'tiny-mcp', family: 'O', backend: 'renderer', resolution: '180p', durations: [1], aspect_ratios: ['16:9'] },
    ];
    await writeFile(join(dataDir, 'models.json'), JSON.stringify({ models }));
    const env = {
      VIDGEN_DATA_DIR: dataDir,
      VIDGEN_DATABASE_URL: database.location,
      VIDGEN_SIGNING_SECRET: 'mcp-scale-out',
      VIDGEN_MODELS_FILE: join(dataDir, 'models.json'),
    };
    const key = (await runServerCommand(['keys', 'create', '--account', 'agents'], env)).stdout.trim();
    // Each process lists the modules it loaded when it exits.
    const recorded = (name: string) => ({
      ...env,
      NODE_OPTIONS: `--import=${RECORD_MODULES}`,
      VIDGEN_TEST_MODULES_FILE: join(dataDir, `modules-${name}.txt`),
    });
    for (const name of ['worker', 'first', 'second'])
      processes.push(await spawnServer(recorded(name), ['--role', name === 'worker' ? 'worker' : 'api']));
    const [worker, first, second] = processes;
    const one = await connectMcp('http', first.url, key);
    const two = await connectMcp('http', second.url, key);
    clients.push(one, two);

    const task = await createAsTask(one, 'generate_video', { prompt: 'a lighthouse, made here', model: 'tiny-mcp' });
    assert.equal((await two.experimental.tasks.getTask(task.taskId)).taskId, task.taskId);
    assert.ok((await two.experimental.tasks.listTasks()).tasks.some((listed) => listed.taskId === task.taskId));
    // tasks/result through the other process waits on its wake-ups for the worker's completion.
    const result = await two.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    const video = result.structuredContent as { id: string; status: string; url: string };
    assert.equal(video.status, 'completed');
    assert.ok(video.url.startsWith(second.url));
    const { probe } = await downloadAndProbe(video.url);
    assert.equal(probe.codec, 'h264');
    assert.equal((await one.experimental.tasks.getTask(task.taskId)).status, 'completed');

    // With the worker stopped a new task stays queued: a cancel through one is seen through the other.
    await worker.stop();
    const held = await createAsTask(two, 'generate_video', { prompt: 'a second lighthouse', model: 'tiny-mcp' });
    assert.equal((await one.experimental.tasks.cancelTask(held.taskId)).status, 'cancelled');
    assert.equal((await two.experimental.tasks.getTask(held.taskId)).status, 'cancelled');

    // The SDK is loaded by the first /mcp request: never by a worker, nor by an API process that served none.
    const idle = await spawnServer(recorded('idle'), ['--role', 'api']);
    processes.push(idle);
    assert.equal((await fetch(`${idle.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).status, 200);
    for (const p of [idle, first]) await p.stop();
    const sdkLoadedBy = async (name: string) => {
      const loaded = (await readFile(join(dataDir, `modules-${name}.txt`), 'utf8')).split('\n');
      assert.ok(
        loaded.some((m) => m.includes('fastify')),
        `${name}: the module list was recorded`,
      );
      return loaded.some((m) => m.includes('@modelcontextprotocol'));
    };
    assert.equal(await sdkLoadedBy('worker'), false);
    assert.equal(await sdkLoadedBy('idle'), false);
    assert.equal(await sdkLoadedBy('first'), true);
  });
});
