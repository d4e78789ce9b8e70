import { open, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { writeFileAtomic, fsyncDir } from './atomic-file.ts';

export interface PartialMeta {
  /** What the bytes belong to (task id, or the URL when there is none). */
  source: string;
  etag: string;
  total?: number;
}

/**
 * The bytes of an unfinished download, kept beside the target (same directory, so the final
 * rename is atomic) with a small sidecar naming the ETag they belong to, so a later run can
 * resume with `Range` + `If-Range` instead of starting over.
 */
export class PartialDownload {
  readonly partPath: string;
  readonly metaPath: string;

  constructor(readonly target: string) {
    const dir = dirname(target);
    this.partPath = join(dir, `.${basename(target)}.vidgen-part`);
    this.metaPath = `${this.partPath}.json`;
  }

  /** Bytes already here for `source`, with the ETag that must still match; 0 when there is nothing usable. */
  async resumable(source: string): Promise<{ from: number; etag?: string }> {
    const meta = await this.readMeta();
    const size = await sizeOf(this.partPath);
    if (!meta || meta.source !== source || size === 0) return { from: 0 };
    if (meta.total !== undefined && size > meta.total) return { from: 0 };
    return { from: size, etag: meta.etag };
  }

  async size(): Promise<number> {
    return sizeOf(this.partPath);
  }

  async writeMeta(meta: PartialMeta): Promise<void> {
    await writeFileAtomic(this.metaPath, JSON.stringify(meta));
  }

  async readMeta(): Promise<PartialMeta | undefined> {
    try {
      return JSON.parse(await readFile(this.metaPath, 'utf8')) as PartialMeta;
    } catch {
      return undefined;
    }
  }

  async head(bytes: number): Promise<Uint8Array> {
    const handle = await open(this.partPath, 'r');
    try {
      const buffer = new Uint8Array(bytes);
      const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  }

  /** Makes the finished file visible at the target in one step: it is there whole, or not at all. */
  async commit(): Promise<void> {
    const handle = await open(this.partPath, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(this.partPath, this.target);
    await rm(this.metaPath, { force: true });
    await fsyncDir(dirname(this.target));
  }

  /** Without an ETag the bytes cannot be resumed later; they are only good for this answer. */
  async forgetMeta(): Promise<void> {
    await rm(this.metaPath, { force: true });
  }

  /** True when a later run could resume from what is here. */
  async isResumable(): Promise<boolean> {
    return (await this.readMeta()) !== undefined && (await this.size()) > 0;
  }

  async discard(): Promise<void> {
    await rm(this.partPath, { force: true });
    await rm(this.metaPath, { force: true });
  }
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}
