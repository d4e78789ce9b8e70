import { spawn } from 'node:child_process';
import { createServer } from 'node:net';

/** What a finished command printed and how it exited. */
export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The image under test: deploy/ci/test-deploy.sh builds it from the repository's Dockerfile. */
export const IMAGE = process.env.VIDGEN_IMAGE ?? 'localhost/vidgen:ci';

/** Runs a command to completion; never throws for a non-zero exit (see `must`). */
export function run(command: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  return new Promise<Run>((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** Runs a command and returns its stdout; a non-zero exit throws with what it printed. */
export async function must(command: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const res = await run(command, args, opts);
  if (res.code !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} exited ${res.code}\n${res.stderr.slice(-4000)}${res.stdout.slice(-2000)}`,
    );
  }
  return res.stdout;
}

export const podman = (...args: string[]) => must('podman', args);

/**
 * Why the deploy tests cannot run here, or undefined when they can. Under CI=true a missing podman or
 * image is a failure, never a skip: CI installs both (deploy/ci/test-deploy.sh).
 */
export async function missingPodman(): Promise<string | undefined> {
  const info = await run('podman', ['image', 'exists', IMAGE]).catch((err: Error) => ({
    code: -1,
    stderr: err.message,
  }));
  if (info.code === 0) return undefined;
  const reason =
    info.code === -1
      ? `podman is not installed (${info.stderr}); run deploy/ci/setup-podman.sh as root`
      : `the image ${IMAGE} does not exist; npm run test:deploy builds it`;
  if (process.env.CI === 'true') throw new Error(`${reason} (CI=true: a missing service is a failure)`);
  return reason;
}

/** A TCP port nobody listens on right now, for a published port (other processes hold some). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Polls `check` until it returns a value other than undefined; throws naming `what` after `limitMs`. */
export async function waitFor<T>(what: string, limitMs: number, check: () => Promise<T | undefined>): Promise<T> {
  const until = Date.now() + limitMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > until) throw new Error(`${what}: not after ${limitMs / 1000} s${last ? ` (${last})` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Resolves when GET `url` answers 200 (connection errors while starting are expected). */
export const answers200 = (url: string) => async () => ((await fetch(url)).status === 200 ? true : undefined);

/** Removes a compose project's containers with their anonymous volumes (`down -v` keeps those). */
export async function removeContainers(project: string): Promise<void> {
  const ids = (await run('podman', ['ps', '-a', '-q', '--filter', `label=io.podman.compose.project=${project}`])).stdout
    .trim()
    .split('\n')
    .filter(Boolean);
  if (ids.length > 0) await run('podman', ['rm', '-f', '-v', ...ids]);
}
