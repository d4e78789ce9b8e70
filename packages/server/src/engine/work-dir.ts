import { mkdtempSync, readdirSync, rmdirSync, unlinkSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';

// An attempt's work directory is made and removed with synchronous calls: they are metadata calls
// of microseconds each, where a thread-pool round trip took about a millisecond on a loaded
// machine, and an attempt made five of them around a one-file output (bench/engine.bench.ts).

export function makeWorkDir(root: string, prefix = 'task-'): string {
  return mkdtempSync(join(root, prefix));
}

/** Removes the directory; subdirectories (which may be large, e.g. frames) go to the thread pool. */
export async function removeWorkDir(path: string): Promise<void> {
  try {
    const dirs: string[] = [];
    for (const e of readdirSync(path, { withFileTypes: true })) {
      if (e.isDirectory()) dirs.push(join(path, e.name));
      else unlinkSync(join(path, e.name));
    }
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
    rmdirSync(path);
  } catch {
    await rm(path, { recursive: true, force: true });
  }
}
