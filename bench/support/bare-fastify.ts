import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./bare-fastify.mjs', import.meta.url));

export interface BareFastify {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts bare-fastify.mjs as its own process and waits until it listens. */
export async function startBareFastify(): Promise<BareFastify> {
  const child = spawn(process.execPath, [SCRIPT], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bare Fastify exited with ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line).url));
  });
  return {
    url,
    child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
