import { spawnServer, runServerCommand, type ServerProcess } from '../../test/e2e/support/process.ts';

export interface DoneTask {
  server: ServerProcess;
  key: string;
  /** Family B task id of a finished `video-v1-5s` render. */
  id: string;
}

/**
 * A server as `npm start` runs it (API and worker in one process, request logs at info) with one
 * key and one finished video: what the poll and content benches measure against. Its log goes
 * down a pipe as under a log collector, but is not parsed in the bench's own process, which is
 * also the load generator's.
 */
export async function serverWithDoneTask(dataDir: string, env: Record<string, string> = {}): Promise<DoneTask> {
  const fullEnv = { VIDGEN_DATA_DIR: dataDir, VIDGEN_POLL_MS: '100', ...env };
  const key = (await runServerCommand(['keys', 'create', '--account', 'bench'], fullEnv)).stdout.trim();
  const server = await spawnServer(fullEnv, [], { keepLines: false });
  try {
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const submit = await fetch(`${server.url}/v1/video/generations`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: 'video-v1-5s', prompt: 'a lighthouse at dusk, slow pan right' }),
    });
    const { task_id: id } = (await submit.json()) as { task_id: string };
    const deadline = Date.now() + 300_000;
    for (;;) {
      const poll = (await (await fetch(`${server.url}/v1/video/generations/${id}`, { headers })).json()) as {
        status: string;
      };
      if (poll.status === 'SUCCESS') return { server, key, id };
      if (poll.status === 'FAILURE' || Date.now() > deadline)
        throw new Error(`the bench video did not render: ${JSON.stringify(poll)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  } catch (err) {
    await server.stop();
    throw err;
  }
}
