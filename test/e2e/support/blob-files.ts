import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { videoKey } from '../../../packages/server/src/engine/video-variants.ts';

/**
 * The local-disk directory holding a task's stored files, and the names of that task's own files
 * in it (its videos with their posters and sprite sheets), sorted. Tasks share directories.
 */
export async function taskBlobFiles(dataDir: string, taskId: string): Promise<{ dir: string; files: string[] }> {
  const dir = join(dataDir, 'blobs', dirname(videoKey(taskId, 0)));
  const names = await readdir(dir).catch(() => [] as string[]);
  return { dir, files: names.filter((name) => name.startsWith(`${taskId}.`)).sort() };
}
