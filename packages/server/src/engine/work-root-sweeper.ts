import { readdir, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';

const SEPARATOR = '~';

/**
 * This process's part of the prefix, read once: os.hostname() is a system call, and asking it for
 * every attempt cost a no-op task about a tenth of its CPU time (bench/engine.bench.ts --cpu-prof).
 */
let owner: string | undefined;

/**
 * The prefix of an attempt's work directory: the host and process that own it, so a restart
 * can tell its dead predecessors' leftovers (kill -9 skips every cleanup) from the directories
 * of processes still running on the same work root.
 */
export function workDirPrefix(taskId: string): string {
  owner ??= [hostname(), process.pid].join(SEPARATOR);
  return [owner, taskId, ''].join(SEPARATOR);
}

/**
 * Removes what attempts of dead processes left in the work root. A directory is kept when its
 * owner may be alive: a live process on this host, or any process on another host sharing the
 * directory (it cannot be asked). Directories of the old naming (`task-…`) predate owners and go.
 */
export async function sweepWorkRoot(workRoot: string, logger: Logger): Promise<number> {
  const entries = await readdir(workRoot).catch(() => [] as string[]);
  let removed = 0;
  for (const name of entries) {
    if (!isAbandoned(name)) continue;
    await rm(join(workRoot, name), { recursive: true, force: true }).catch((err) =>
      logger.warn({ err, dir: name }, 'work directory not removed'),
    );
    removed++;
  }
  if (removed > 0) logger.info({ removed }, 'removed work directories left by stopped processes');
  return removed;
}

function isAbandoned(name: string): boolean {
  if (name.startsWith('task-')) return true;
  const [host, pid] = name.split(SEPARATOR);
  if (host !== hostname() || !/^\d+$/.test(pid ?? '')) return false;
  return Number(pid) !== process.pid && !isAlive(Number(pid));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
