import { findByIdempotencyKey } from '../submit/find-by-idempotency-key.ts';
import { ResultExpiredError, SubmitOutcomeUnknown, TaskFailedError, WaitTimeoutError } from '../task-errors.ts';
import { taskIdOf, type TaskView } from '../wait/task-view.ts';
import type { PollPlan } from '../wait/wait-for.ts';
import type { ClientCore } from '../resources/client-core.ts';
import type { RequestOptions } from '../types.ts';
import type { JournalScope } from './journal-scope.ts';
import type { TaskObject } from '../types.ts';
import { needsResume, type JournalEntry, type TaskJournal } from './task-journal.ts';
import { inScope } from './journal-scope.ts';
import { APIConnectionError, AuthenticationError, NotFoundError, PermissionDeniedError } from '../errors.ts';

export interface ResumeOptions {
  maxWaitMs?: number;
  intervalMs?: number;
  longPollSeconds?: number;
  signal?: AbortSignal;
  onProgress?: (entry: JournalEntry, view: TaskView, poll: PollPlan) => void;
  /** Saves a finished result (Node: `NodeVidgenClient` downloads to `entry.downloadTo`); returns where it went. */
  onSucceeded?: (entry: JournalEntry, task: TaskObject<JournalEntry['family']>) => Promise<string | undefined>;
  /** Send again, with the same key, a submit that a lookup proved the server never received. Default true. */
  resubmit?: boolean;
}

/** `elsewhere`: the entry belongs to another server or key and was left alone (see `JournalScope`). */
export type ResumeOutcome =
  | 'downloaded'
  | 'succeeded'
  | 'failed'
  | 'expired'
  | 'unknown'
  | 'not_received'
  | 'timeout'
  | 'error'
  | 'elsewhere';

export interface ResumeResult {
  entry: JournalEntry;
  outcome: ResumeOutcome;
  task?: unknown;
  error?: unknown;
}

/**
 * What resuming needs of the client (not the client class itself, which calls resume: that would
 * tie the two modules in a circle).
 */
export type ResumeClient = ClientCore & {
  journalScope(): Promise<JournalScope>;
  models: { list(options?: RequestOptions): Promise<unknown> };
};

/** Entries resumed at once: one long task must not hold up the others, nor a hundred open many sockets. */
const CONCURRENCY = 4;

/**
 * Resumes the entries of this client's server and key, a few at a time; one entry's failure never
 * stops the others. Entries of other servers or keys are reported, untouched. A server that cannot
 * be reached (or refuses the key) is found out once, up front, so resume reports instead of stalling.
 */
export async function resumeJournal(
  client: ResumeClient,
  journal: TaskJournal,
  opts: ResumeOptions,
): Promise<ResumeResult[]> {
  const scope = await client.journalScope();
  const open = (await journal.list()).filter(needsResume);
  const elsewhere = open
    .filter((e) => !inScope(e, scope))
    .map((entry): ResumeResult => ({ entry, outcome: 'elsewhere' }));
  const mine = open.filter((e) => inScope(e, scope));
  if (mine.length === 0) return elsewhere;
  const unreachable = await probe(client, opts.signal);
  if (unreachable)
    return [...mine.map((entry): ResumeResult => ({ entry, outcome: 'error', error: unreachable })), ...elsewhere];
  const results: ResumeResult[] = new Array(mine.length);
  let next = 0;
  const lane = async () => {
    while (next < mine.length) {
      const i = next++;
      results[i] = await settle(client, journal, mine[i], opts);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, mine.length) }, lane));
  return [...results, ...elsewhere];
}

async function settle(
  client: ResumeClient,
  journal: TaskJournal,
  entry: JournalEntry,
  opts: ResumeOptions,
): Promise<ResumeResult> {
  try {
    return await resumeEntry(client, journal, entry, opts);
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    // A poll that says expired is journaled by the wait; a download answered 410 is journaled here.
    if (err instanceof ResultExpiredError)
      await journal.update(entry.idempotencyKey, { state: 'expired', updatedAt: Date.now() });
    // The server has no such task (its data was reset, or the task was purged): nothing left to chase.
    if (err instanceof NotFoundError) {
      await journal.update(entry.idempotencyKey, {
        state: 'failed',
        error: { code: 'not_found', message: err.message },
        updatedAt: Date.now(),
      });
    }
    return { entry: (await journal.get(entry.idempotencyKey)) ?? entry, outcome: outcomeOf(err), error: err };
  }
}

/** One cheap authenticated call: undefined when the server answers, else the error every entry would hit. */
async function probe(client: ResumeClient, signal: AbortSignal | undefined): Promise<unknown> {
  try {
    await client.models.list({ signal, maxRetries: 1 });
    return undefined;
  } catch (err) {
    if (signal?.aborted) throw err;
    return err instanceof APIConnectionError ||
      err instanceof AuthenticationError ||
      err instanceof PermissionDeniedError
      ? err
      : undefined;
  }
}

async function resumeEntry(
  client: ResumeClient,
  journal: TaskJournal,
  entry: JournalEntry,
  opts: ResumeOptions,
): Promise<ResumeResult> {
  let current = entry;
  if (!current.taskId) {
    const reconciled = await reconcile(client, journal, current, opts);
    if ('outcome' in reconciled) return reconciled;
    current = reconciled;
  }
  const task = await client.waitFor(current.taskId!, {
    family: current.family,
    maxWaitMs: opts.maxWaitMs,
    intervalMs: opts.intervalMs,
    longPollSeconds: opts.longPollSeconds,
    signal: opts.signal,
    onProgress: (view, _task, poll) => opts.onProgress?.(current, view, poll),
  });
  current = (await journal.get(current.idempotencyKey)) ?? current;
  if (!current.downloadTo || !opts.onSucceeded) return { entry: current, outcome: 'succeeded', task };
  const savedTo = await opts.onSucceeded(current, task);
  const done = await journal.update(current.idempotencyKey, {
    state: 'downloaded',
    downloadedTo: savedTo ?? current.downloadTo,
    updatedAt: Date.now(),
  });
  return { entry: done ?? current, outcome: 'downloaded', task };
}

/**
 * A submit without a known answer: find its task by key, or send it again under the same key if it provably never
 * arrived.
 */
async function reconcile(
  client: ResumeClient,
  journal: TaskJournal,
  entry: JournalEntry,
  opts: ResumeOptions,
): Promise<JournalEntry | ResumeResult> {
  const lookup = await findByIdempotencyKey(client.transport, {
    family: entry.family,
    idempotencyKey: entry.idempotencyKey,
    model: entry.model,
    submittedAt: entry.submittedAt,
    signal: opts.signal,
  });
  if (lookup.kind === 'found') {
    const taskId = taskIdOf(entry.family, lookup.task);
    return (await journal.update(entry.idempotencyKey, { state: 'submitted', taskId, updatedAt: Date.now() })) ?? entry;
  }
  if (lookup.kind !== 'absent') {
    const updated = await journal.update(entry.idempotencyKey, { state: 'unknown', updatedAt: Date.now() });
    const cause = lookup.kind === 'unavailable' ? lookup.cause : new Error(lookup.reason);
    const error = new SubmitOutcomeUnknown(
      entry.idempotencyKey,
      entry.family,
      entry.fingerprint,
      entry.submittedAt,
      entry.model,
      { cause },
    );
    return { entry: updated ?? entry, outcome: 'unknown', error };
  }
  if (opts.resubmit === false || entry.body === undefined) {
    return {
      entry: (await journal.update(entry.idempotencyKey, { state: 'not_received', updatedAt: Date.now() })) ?? entry,
      outcome: 'not_received',
    };
  }
  await client.submit({
    family: entry.family,
    kind: entry.kind,
    path: entry.path,
    body: entry.body as { model: string },
    options: { idempotencyKey: entry.idempotencyKey, downloadTo: entry.downloadTo, signal: opts.signal },
  });
  return (await journal.get(entry.idempotencyKey)) ?? entry;
}

function outcomeOf(err: unknown): ResumeOutcome {
  if (err instanceof TaskFailedError) return 'failed';
  if (err instanceof ResultExpiredError) return 'expired';
  if (err instanceof WaitTimeoutError) return 'timeout';
  if (err instanceof SubmitOutcomeUnknown) return 'unknown';
  return 'error';
}
