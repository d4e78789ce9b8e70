import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { JournalEntry, TaskJournal } from '../journal/task-journal.ts';
import { writeFileAtomic } from './atomic-file.ts';

/**
 * A journal in a directory, one JSON file per submit, each replaced atomically (temp file,
 * fsync, rename). A crash at any point leaves every entry either as it was or as it became.
 * Separate files mean concurrent `vidgen` processes never rewrite each other's entries.
 */
export class FileJournal implements TaskJournal {
  constructor(readonly dir: string) {}

  async record(entry: JournalEntry): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.fileOf(entry.idempotencyKey), `${JSON.stringify(entry, null, 2)}\n`);
  }

  async update(
    idempotencyKey: string,
    patch: Partial<Omit<JournalEntry, 'idempotencyKey'>>,
  ): Promise<JournalEntry | undefined> {
    const current = await this.get(idempotencyKey);
    if (!current) return undefined;
    const next: JournalEntry = {
      ...current,
      ...dropUndefined(patch),
      idempotencyKey,
      updatedAt: patch.updatedAt ?? Date.now(),
    };
    await this.record(next);
    return next;
  }

  async get(idempotencyKey: string): Promise<JournalEntry | undefined> {
    return readEntry(this.fileOf(idempotencyKey));
  }

  async list(): Promise<JournalEntry[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    // Dot files are temp files of writes in progress (or abandoned by a crash).
    const files = names.filter((n) => n.endsWith('.json') && !n.startsWith('.'));
    const entries = await Promise.all(files.map((n) => readEntry(join(this.dir, n))));
    return entries.filter((e): e is JournalEntry => e !== undefined).sort((a, b) => a.submittedAt - b.submittedAt);
  }

  async remove(idempotencyKey: string): Promise<void> {
    await rm(this.fileOf(idempotencyKey), { force: true });
  }

  /** Keys become file names; anything unusual as a name is hashed instead. */
  private fileOf(key: string): string {
    const name = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/.test(key)
      ? key
      : `k-${createHash('sha256').update(key).digest('hex')}`;
    return join(this.dir, `${name}.json`);
  }
}

async function readEntry(path: string): Promise<JournalEntry | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  return JSON.parse(text) as JournalEntry;
}

function dropUndefined<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<T>;
}
