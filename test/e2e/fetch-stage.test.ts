import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeVidgenClient } from '@vidgen/client/node';
import { spawnServer, runServerCommand, type ServerProcess } from './support/process.ts';

/**
 * A task's inputs are fetched before it takes a render slot (engine/fetch-stage.ts). With one render
 * slot, a task whose image URL never answers must not hold back a task queued after it: the second
 * renders and succeeds while the first is still waiting for its image. Before the fetch stage, the
 * second waited the whole fetch timeout (here 30 s) behind the first.
 */
describe('a never-answering input URL does not hold a render slot', () => {
  let dir: string;
  let server: ServerProcess;
  let silent: Server;
  const sockets = new Set<Socket>();
  let client: NodeVidgenClient;
  let silentUrl: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vidgen-fetch-stage-'));
    // Accepts connections and never says a word.
    silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    silentUrl = `http://127.0.0.1:${port}/frame.png`;
    const env = {
      VIDGEN_DATA_DIR: dir,
      VIDGEN_SIGNING_SECRET: 'fetch-stage',
      VIDGEN_POLL_MS: '100',
      VIDGEN_WORKER_CONCURRENCY: '1',
      VIDGEN_FETCH_TIMEOUT_MS: '30000',
      VIDGEN_ALLOW_PRIVATE_URLS: '1',
    };
    const key = (await runServerCommand(['keys', 'create', '--account', 'fetch'], env)).stdout.trim();
    server = await spawnServer(env);
    client = new NodeVidgenClient({ baseURL: server.url, apiKey: key, maxRetries: 0 });
  });
  after(async () => {
    await server?.stop();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent?.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  it('another task starts and finishes while the input is still being fetched; the stuck one can be canceled', async () => {
    const stuck = await client.videoGenerations.create({ model: 'video-v1-5s', prompt: 'a kite', image: silentUrl });
    // Its fetch is under way: the silent server has its connection.
    while (sockets.size === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const free = await client.videoGenerations.create({ model: 'video-v1-5s', prompt: 'a boat on a pond' });
    const done = await client.videoGenerations.wait(free.task_id, { maxWaitMs: 120_000 });
    assert.equal(done.status, 'SUCCESS', JSON.stringify(done));
    // The stuck task is still fetching: it never held the only render slot.
    const meanwhile = await client.videoGenerations.retrieve(stuck.task_id);
    assert.ok(['queued', 'IN_PROGRESS'].includes(meanwhile.status), meanwhile.status);
    assert.equal(sockets.size > 0, true, 'the fetch is still waiting on the silent server');
    // A cancel reaches a task in the fetch stage at once (its fetch is aborted), as in a render slot.
    await client.videoGenerations.cancel(stuck.task_id);
    let canceled = await client.videoGenerations.retrieve(stuck.task_id);
    while (canceled.status !== 'FAILURE') {
      await new Promise((resolve) => setTimeout(resolve, 50));
      canceled = await client.videoGenerations.retrieve(stuck.task_id);
    }
    assert.equal(canceled.error?.code, 'canceled');
  });
});
