import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NewApiStandin, type NewApiTask } from '../../../packages/server/test/support/newapi-standin.ts';

const KEY = 'steered-upstream-key';

/** The models of each dialect that the steered upstream renders. */
export const STEERED_MODELS = { A: 'steered-a', B: 'steered-b', O: 'steered-o' } as const;

export interface SteeredUpstream {
  /** What a vidgen server needs to relay these models to it: the backends and models files, the key. */
  env: Record<string, string>;
  /** The upstream job of the task submitted with this prompt, once the relay has sent it. */
  jobFor(prompt: string): Promise<NewApiTask>;
  close(): Promise<void>;
}

/**
 * A render whose every step the test makes: a relay backend (docs/relays.md) in front of a
 * new-api stand-in in `steered` mode, where each job stays in progress at the percentage the test
 * sets until the test lets it finish. The relay polls it every 50 ms, so each step becomes one
 * progress write of the task, in a worker of any process, in-process or spawned.
 */
export async function startSteeredUpstream(): Promise<SteeredUpstream> {
  const upstream = await NewApiStandin.start({ key: KEY, models: ['upstream-video'], steered: true });
  const dir = await mkdtemp(join(tmpdir(), 'vidgen-steered-'));
  const models = Object.entries(STEERED_MODELS).map(([family, id]) => ({
    id,
    family,
    backend: 'steered',
    resolution: '180p',
    durations: [1],
    aspect_ratios: ['16:9'],
  }));
  await writeFile(join(dir, 'models.json'), JSON.stringify({ models }));
  await writeFile(
    join(dir, 'backends.json'),
    JSON.stringify({
      backends: {
        steered: {
          type: 'relay',
          channels: [
            {
              name: 'steered',
              dialect: 'B',
              base_url: upstream.url,
              api_key_env: 'STEERED_UPSTREAM_KEY',
              models: Object.fromEntries(models.map((m) => [m.id, 'upstream-video'])),
              poll_interval_seconds: 0.05,
            },
          ],
        },
      },
    }),
  );
  return {
    env: {
      VIDGEN_MODELS_FILE: join(dir, 'models.json'),
      VIDGEN_BACKENDS_FILE: join(dir, 'backends.json'),
      STEERED_UPSTREAM_KEY: KEY,
    },
    async jobFor(prompt) {
      for (;;) {
        const job = upstream.tasks.find((t) => t.body.prompt === prompt);
        if (job) return job;
        await pause();
      }
    },
    async close() {
      await upstream.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Waits until `condition` holds, looking every 20 ms: no clock decides, only the condition. */
export async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await pause();
}

const pause = () => new Promise((resolve) => setTimeout(resolve, 20));

/**
 * A TCP front door, as a load balancer stands in front of API processes: connections go to the
 * current target, which the test moves to another process; while the target is gone, connections
 * are cut at once.
 */
export async function startFrontDoor(targetPort: number): Promise<{
  url: string;
  retarget(port: number): void;
  close(): Promise<void>;
}> {
  let target = targetPort;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const backend = net.connect(target, '127.0.0.1');
    for (const socket of [client, backend]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    }
    client.on('error', () => backend.destroy());
    backend.on('error', () => client.destroy());
    client.pipe(backend).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    retarget(port) {
      target = port;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
