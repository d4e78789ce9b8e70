import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Readiness of a directory the process writes (the data dir with the SQLite file, the work
 * root): a small file written, flushed and removed. A full or read-only disk fails here, where
 * a database ping (a read) still succeeds.
 */
export async function probeWritable(dir: string): Promise<void> {
  const path = join(dir, `.ready-${process.pid}`);
  const file = await open(path, 'w');
  try {
    await file.write(Buffer.alloc(4096));
    await file.sync();
  } finally {
    await file.close();
    await rm(path, { force: true });
  }
}
