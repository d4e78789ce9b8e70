import { findByIdempotencyKey } from '../submit/find-by-idempotency-key.ts';
import { ResultExpiredError, SubmitOutcomeUnknown, TaskFailedError, WaitTimeoutError } from '../task-errors.ts';
import { taskIdOf, type TaskView } from '../wait/task-view.ts';
import type { PollPlan } from '../wait/wait-for.ts';
import type { VidgenClient } from '../vidgen-client.ts';
import type { TaskObject } from '../types.ts';
import { needsResume, type JournalEntry, type TaskJournal } from './task-journal.ts';

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

export type ResumeOutcome = 'downloaded' | 'succeeded' | 'failed' | 'expired' | 'unknown' | 'not_received' | 'timeout' | 'error';

export interface ResumeResult {
  entry: JournalEntry;
  outcome: ResumeOutcome;
  task?: unknown;
  error?: unknown;
}

/** Resumes entries one after another; one entry's failure never stops the others. */
export async function resumeJournal(client: VidgenClient, journal: TaskJournal, opts: ResumeOptions): Promise<ResumeResult[]> {
  const results: ResumeResult[] = [];
  for (const entry of (await journal.list()).filter(needsResume)) {
    try {
      results.push(await resumeEntry(client, journal, entry, opts));
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      // A poll that says expired is journaled by the wait; a download answered 410 is journaled here.
      if (err instanceof ResultExpiredError) await journal.update(entry.idempotencyKey, { state: 'expired', updatedAt: Date.now() });
      results.push({ entry: (await journal.get(entry.idempotencyKey)) ?? entry, outcome: outcomeOf(err), error: err });
    }
  }
  return results;
}

async function resumeEntry(client: VidgenClient, journal: TaskJournal, entry: JournalEntry, opts: ResumeOptions): Promise<ResumeResult> {
  let current = entry;
  if (!current.taskId) {
    const reconciled = await reconcile(client, journal, current, opts);
    if ('outcome' in reconciled) return reconciled;
    current = reconciled;
  }
  const task = await client.waitFor(current.taskId!, {
    family: current.family, maxWaitMs: opts.maxWaitMs, intervalMs: opts.intervalMs, longPollSeconds: opts.longPollSeconds,
    signal: opts.signal, onProgress: (view, _task, poll) => opts.onProgress?.(current, view, poll),
  });
  current = (await journal.get(current.idempotencyKey)) ?? current;
  if (!current.downloadTo || !opts.onSucceeded) return { entry: current, outcome: 'succeeded', task };
  const savedTo = await opts.onSucceeded(current, task);
  const done = await journal.update(current.idempotencyKey, { state: 'downloaded', downloadedTo: savedTo ?? current.downloadTo, updatedAt: Date.now() });
  return { entry: done ?? current, outcome: 'downloaded', task };
}

/** A submit without a known answer: find its task by key, or send it again under the same key if it provably never arrived. */
async function reconcile(client: VidgenClient, journal: TaskJournal, entry: JournalEntry, opts: ResumeOptions): Promise<JournalEntry | ResumeResult> {
  const lookup = await findByIdempotencyKey(client.transport, {
    family: entry.family, idempotencyKey: entry.idempotencyKey, model: entry.model, submittedAt: entry.submittedAt, signal: opts.signal,
  });
  if (lookup.kind === 'found') {
    const taskId = taskIdOf(entry.family, lookup.task);
    return (await journal.update(entry.idempotencyKey, { state: 'submitted', taskId, updatedAt: Date.now() })) ?? entry;
  }
  if (lookup.kind !== 'absent') {
    const updated = await journal.update(entry.idempotencyKey, { state: 'unknown', updatedAt: Date.now() });
    const cause = lookup.kind === 'unavailable' ? lookup.cause : new Error(lookup.reason);
    const error = new SubmitOutcomeUnknown(entry.idempotencyKey, entry.family, entry.fingerprint, entry.submittedAt, entry.model, { cause });
    return { entry: updated ?? entry, outcome: 'unknown', error };
  }
  if (opts.resubmit === false || entry.body === undefined) {
    return { entry: (await journal.update(entry.idempotencyKey, { state: 'not_received', updatedAt: Date.now() })) ?? entry, outcome: 'not_received' };
  }
  await client.submit({
    family: entry.family, kind: entry.kind, path: entry.path, body: entry.body as { model: string },
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
