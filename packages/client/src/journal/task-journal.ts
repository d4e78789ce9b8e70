import type { Family } from '../types.ts';

/**
 * The client's memory of its submits (docs/service-spec.md §1 obligation 1: keep the task id so polling can
 * resume after a restart). Browser-safe interface; `FileJournal` in `@vidgen/client/node` is the
 * durable implementation.
 */
export type JournalState =
  /** Written before the request is sent: the server may or may not have it. */
  | 'submitting'
  /** The server gave a task id; the task may still be running. */
  | 'submitted'
  | 'succeeded'
  | 'failed'
  | 'expired'
  /** The server refused the submit (4xx): nothing was created. */
  | 'rejected'
  /** No answer and no way to look the task up: check before submitting again. */
  | 'unknown'
  /** A lookup proved the server never received it; safe to send again with the same key. */
  | 'not_received'
  | 'downloaded';

export type TaskKind = 'generate' | 'edit' | 'extension';

export interface JournalEntry {
  idempotencyKey: string;
  family: Family;
  kind: TaskKind;
  /** The create endpoint, e.g. `/v1/video/generations`. */
  path: string;
  model: string;
  /** `sha256:<hex>` of the canonical request body. */
  fingerprint: string;
  /** Unix milliseconds of the first send. */
  submittedAt: number;
  updatedAt: number;
  state: JournalState;
  taskId?: string;
  /** Last status seen, in the family's words. */
  status?: string;
  progress?: number;
  /** The request body, so a submit the server never received can be sent again with the same key. */
  body?: unknown;
  error?: { code: string | null; message: string };
  /**
   * Where the result should be saved (set by whoever submitted), for `resume`. A path ending in a separator is a
   * directory, the file in it named after the task (`<task id>.mp4`): a submit does not know the id it will get.
   */
  downloadTo?: string;
  downloadedTo?: string;
  /** The server (normalised base URL) the submit went to; see journal-scope.ts. */
  server?: string;
  /** Which key submitted it: a hash, never the key. */
  account?: string;
}

export interface TaskJournal {
  /** Durably records a new entry; resolves only once it would survive a crash. */
  record(entry: JournalEntry): Promise<void>;
  /** Merges `patch` into the entry (durably); undefined when there is no such entry. */
  update(
    idempotencyKey: string,
    patch: Partial<Omit<JournalEntry, 'idempotencyKey'>>,
  ): Promise<JournalEntry | undefined>;
  get(idempotencyKey: string): Promise<JournalEntry | undefined>;
  /** Every entry, oldest submit first. */
  list(): Promise<JournalEntry[]>;
  remove(idempotencyKey: string): Promise<void>;
}

const FINAL: ReadonlySet<JournalState> = new Set(['failed', 'expired', 'rejected', 'downloaded']);

/** True while an entry still has work: a task to wait for, a submit to reconcile, or a file to save. */
export function needsResume(entry: JournalEntry): boolean {
  if (FINAL.has(entry.state)) return false;
  if (entry.state === 'succeeded') return entry.downloadTo !== undefined;
  return true;
}

/** The file an entry's result goes to: `downloadTo`, or `<task id>.mp4` in it when it names a directory. */
export function downloadPathOf(entry: JournalEntry): string | undefined {
  const to = entry.downloadTo;
  if (to === undefined || !/[\\/]$/.test(to)) return to;
  return entry.taskId === undefined ? undefined : `${to}${entry.taskId}.mp4`;
}
