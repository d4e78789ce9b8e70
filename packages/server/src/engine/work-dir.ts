import { mkdtempSync, readdirSync, rmdirSync, unlinkSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';

// An attempt's work directory is made and removed with synchronous calls: they are metadata calls
// of microseconds each, where a thread-pool round trip took about a millisecond on a loaded
// machine, and an attempt made five of them around a one-file output (bench/engine.bench.ts).

/**
 * An attempt's private directory, made on first use. A backend that never asks for one (its
 * output is a file it already has, or it writes nowhere) costs no directory at all: making and
 * removing one was most of a no-op task's cost, about a millisecond on ext4 mounted with online
 * discard, where the rmdir alone took 0.8 ms (bench/engine.bench.ts under --cpu-prof).
 */
export class WorkDir {
  private made: string | undefined;
  private error: unknown;

  constructor(
    private readonly root: string,
    /** The directory name's prefix, asked only when the directory is made. */
    private readonly prefix: () => string,
  ) {}

  /** The directory, made now if it was not yet; throws (each time) when it cannot be made. */
  get path(): string {
    if (this.made) return this.made;
    try {
      this.made = mkdtempSync(join(this.root, this.prefix()));
      return this.made;
    } catch (err) {
      this.error = err;
      throw err;
    }
  }

  /**
   * Why the directory could not be made, if that was tried and failed. A backend may wrap the error
   * it met (the renderer turns anything unknown into render_failed); the runner asks here so that a
   * full or read-only work root stays a storage fault, not the task's failure.
   */
  get failure(): unknown {
    return this.error;
  }

  async remove(): Promise<void> {
    if (this.made) await removeWorkDir(this.made);
  }
}

/** Removes the directory; subdirectories (which may be large, e.g. frames) go to the thread pool. */
async function removeWorkDir(path: string): Promise<void> {
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
