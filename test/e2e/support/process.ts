import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const SERVER_BIN = fileURLToPath(new URL('../../../packages/server/bin/vidgen-server.mjs', import.meta.url));

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** Log lines seen so far (JSON, as the server writes them). */
  lines: string[];
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts `vidgen-server` as its own process and waits until it says where it listens. */
export async function spawnServer(env: Record<string, string>, args: string[] = []): Promise<ServerProcess> {
  const child = spawn(process.execPath, [SERVER_BIN, ...args], {
    env: { ...process.env, PORT: '0', VIDGEN_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start:\n${lines.join('\n')}`));
    }, 30_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      const parsed = safeJson(line);
      if (parsed?.msg === 'vidgen is running') {
        clearTimeout(timer);
        resolve(parsed.url ?? '');
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

/** Runs `vidgen-server <args>` to completion. */
export function runServerCommand(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SERVER_BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

function safeJson(line: string): any {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
