import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { spawnInGroup } from './process-groups.ts';

export const SERVER_BIN = fileURLToPath(new URL('../../../packages/server/bin/vidgen-server.mjs', import.meta.url));

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** Log lines seen so far (JSON, as the server writes them). */
  lines: string[];
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts `vidgen-server` as its own process and waits until it says where it listens, or exits:
 * no clock, since a busy machine may take any time to start it. With
 * `keepLines: false` the lines after that are read and dropped unparsed (benches: the load
 * generator's process must not spend its time parsing the server's access log).
 */
export async function spawnServer(
  env: Record<string, string>,
  args: string[] = [],
  { keepLines = true } = {},
): Promise<ServerProcess> {
  const child = spawnInGroup(process.execPath, [SERVER_BIN, ...args], {
    env: { ...process.env, PORT: '0', VIDGEN_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    const reader = createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      const parsed = safeJson(line);
      if (parsed?.msg === 'vidgen is running') {
        resolve(parsed.url ?? '');
        if (!keepLines) {
          reader.close();
          child.stdout!.resume();
        }
      }
    });
    child.stderr!.on('data', (d) => lines.push(String(d)));
    child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${lines.join('\n')}`)));
  });
  return {
    child,
    url,
    lines,
    stop: (signal = 'SIGTERM') =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
}

/** What a command left behind when it exited. */
export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Collects a spawned child's output until it exits (a child that cannot start rejects). */
export function collectOutput(child: ChildProcess): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d) => (stdout += d));
    child.stderr?.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** Runs a command to completion; `stdin`, when given, is written and closed. */
export function runCommand(
  command: string,
  args: string[],
  opts: { env?: Record<string, string>; cwd?: string; stdin?: string } = {},
): Promise<CommandResult> {
  const child = spawnInGroup(command, args, {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
    stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  const done = collectOutput(child);
  if (opts.stdin !== undefined) child.stdin!.end(opts.stdin);
  return done;
}

/** Runs `vidgen-server <args>` to completion. */
export function runServerCommand(args: string[], env: Record<string, string>): Promise<CommandResult> {
  return runCommand(process.execPath, [SERVER_BIN, ...args], { env });
}

function safeJson(line: string): any {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/**
 * The key a first start prints on stderr. It is printed once the server is up, so it may arrive
 * after the ready line: wait for it, as long as the process lives.
 */
export async function bootstrapKeyOf(server: ServerProcess): Promise<string> {
  for (;;) {
    const shown = /only this once:\s+(vg-[A-Za-z0-9_-]{43})/.exec(server.lines.join(''));
    if (shown) return shown[1];
    if (server.child.exitCode !== null) throw new Error('the server exited without printing a key');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
