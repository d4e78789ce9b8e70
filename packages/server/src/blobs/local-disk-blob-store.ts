import { closeSync, fstatSync, linkSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { copyFile, link, mkdir, rename, rm, stat, writeFile, readFile, access, constants } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { FileSliceStream } from './file-slice-stream.ts';
import { assertBlobKey, type BlobInfo, type BlobStore, type ByteRange } from './blob-store.ts';

/** Reads in 1 MiB chunks: few syscalls per video, bounded memory and event-loop time per read. */
const CHUNK = 1024 * 1024;

/** Blobs as files under one directory; writes go to a temporary file and are renamed into place. */
export class LocalDiskBlobStore implements BlobStore {
  private readonly tmpDir: string;
  /**
   * Directories this store made or found, so a put into one costs no mkdir. Keys share few
   * directories (engine/video-variants.ts); one removed behind the store's back fails the link,
   * and the slower path below makes it again.
   */
  private readonly knownDirs = new Set<string>();

  constructor(private readonly root: string) {
    this.tmpDir = join(root, '.tmp');
  }

  async putFile(key: string, path: string): Promise<BlobInfo> {
    // A hard link costs one metadata write where a copy rewrites the whole video; the source stays
    // untouched either way. Linking straight to the key is as atomic as a rename (the name appears
    // with the whole, finished file behind it): three calls per video instead of five
    // (bench/engine.bench.ts). An existing key, another file system, or a store where links are not
    // allowed takes the temporary file and rename. These are metadata calls on the data directory,
    // made synchronously like better-sqlite3's writes to the same disk: microseconds each, where a
    // thread-pool round trip took about a millisecond on a loaded machine (bench/engine.bench.ts).
    const target = this.pathOf(key);
    const dir = dirname(target);
    try {
      if (!this.knownDirs.has(dir)) {
        mkdirSync(dir, { recursive: true });
        this.remember(dir);
      }
      linkSync(path, target);
      return { size: statSync(target).size };
    } catch {
      this.knownDirs.delete(dir);
      return this.place(key, (tmp) => link(path, tmp).catch(() => copyFile(path, tmp)));
    }
  }

  private remember(dir: string): void {
    // Bounded: the oldest go first, and a forgotten directory only costs one mkdir again.
    if (this.knownDirs.size >= 1024) this.knownDirs.delete(this.knownDirs.values().next().value!);
    this.knownDirs.add(dir);
  }

  async putBuffer(key: string, data: Buffer): Promise<BlobInfo> {
    return this.place(key, (tmp) => writeFile(tmp, data));
  }

  // Synchronous like putFile's metadata calls: the content route stats every download, and a
  // thread-pool round trip cost more than the whole stat (bench/content.bench.ts).
  async stat(key: string): Promise<BlobInfo | undefined> {
    try {
      return { size: statSync(this.pathOf(key)).size };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  /**
   * Opens synchronously, so a missing or unreadable file rejects here, before the caller has sent
   * any header; the bytes are read synchronously too (file-slice-stream.ts says why).
   */
  async read(key: string, range?: ByteRange): Promise<Readable> {
    const fd = openSync(this.pathOf(key), 'r');
    try {
      const slice = range ?? { start: 0, end: fstatSync(fd).size - 1 };
      return new FileSliceStream(fd, slice.start, slice.end, CHUNK);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  readNow(key: string, range: ByteRange, into: Buffer): Buffer {
    const fd = openSync(this.pathOf(key), 'r');
    try {
      const length = range.end - range.start + 1;
      let filled = 0;
      while (filled < length) {
        const got = readSync(fd, into, filled, length - filled, range.start + filled);
        if (got === 0) break; // the file is shorter than its range: the client's Content-Length check sees it
        filled += got;
      }
      return into.subarray(0, filled);
    } finally {
      closeSync(fd);
    }
  }

  // async so that an invalid key rejects, like every other method, instead of throwing.
  async readBuffer(key: string): Promise<Buffer> {
    return readFile(this.pathOf(key));
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async check(): Promise<void> {
    await mkdir(this.tmpDir, { recursive: true });
    await access(this.tmpDir, constants.W_OK);
  }

  /**
   * A recursive mkdir on a read-only file system reports ENOENT; the caller (and the 503 it
   * turns into) needs the real reason, which a write check of the root gives (EROFS, EACCES).
   */
  private async whyNotWritable(err: unknown): Promise<never> {
    await access(this.root, constants.W_OK);
    throw err;
  }

  private pathOf(key: string): string {
    assertBlobKey(key);
    return join(this.root, key);
  }

  private async place(key: string, write: (tmp: string) => Promise<void>): Promise<BlobInfo> {
    const target = this.pathOf(key);
    await mkdir(this.tmpDir, { recursive: true }).catch((err) => this.whyNotWritable(err));
    await mkdir(dirname(target), { recursive: true }).catch((err) => this.whyNotWritable(err));
    const tmp = join(this.tmpDir, `${randomBytes(8).toString('hex')}.part`);
    try {
      await write(tmp);
      await rename(tmp, target);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    const s = await stat(target);
    return { size: s.size };
  }
}
