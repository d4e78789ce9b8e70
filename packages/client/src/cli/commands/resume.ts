import type { ResumeOutcome, ResumeResult } from '../../journal/resume-journal.ts';
import { numberFlag, secondsFlag } from '../cli-args.ts';
import type { CliContext } from '../cli-context.ts';
import { EXIT, UsageError, exitCodeFor } from '../exit-codes.ts';
import { ProgressReporter } from '../progress-reporter.ts';
import { describeScope } from '../../journal/journal-scope.ts';

const OUTCOME_EXIT: Partial<Record<ResumeOutcome, number>> = {
  failed: EXIT.taskFailed,
  timeout: EXIT.waitTimeout,
  unknown: EXIT.submitUnknown,
  expired: EXIT.resultExpired,
};

/**
 * `vidgen resume`: finishes everything the journal still owes — reconciles submits that got no
 * answer, waits for running tasks, downloads finished ones to the path they were submitted with.
 */
export async function resumeCommand(ctx: CliContext): Promise<number> {
  if (!ctx.client.journal) throw new UsageError('resume needs the journal; drop --no-journal.');
  const progress = new ProgressReporter(ctx.io.stderr);
  let results: ResumeResult[];
  try {
    results = await ctx.client.resume({
      signal: ctx.signal,
      download: ctx.flags['no-download'] !== true,
      maxWaitMs: secondsFlag(ctx.flags, 'max-wait'),
      intervalMs: secondsFlag(ctx.flags, 'interval'),
      longPollSeconds: numberFlag(ctx.flags, 'long-poll'),
      downloadTimeoutMs: secondsFlag(ctx.flags, 'download-timeout'),
      onProgress: (_entry, view, poll) => progress.task(view, poll),
      onDownloadProgress: (received, total) => progress.download(received, total),
    });
  } finally {
    progress.done();
  }
  const lines = results.map((r) => `${r.entry.taskId ?? `(key ${r.entry.idempotencyKey})`}: ${r.outcome}${detail(r)}`);
  ctx.result(results.map(toJson), lines.length ? lines.join('\n') : 'nothing to resume');
  // Another server's entries are not this run's failures: they wait for a resume against their server.
  const failed = results.find(
    (r) => r.outcome !== 'downloaded' && r.outcome !== 'succeeded' && r.outcome !== 'elsewhere',
  );
  if (!failed) return EXIT.ok;
  return OUTCOME_EXIT[failed.outcome] ?? (failed.error ? exitCodeFor(failed.error) : EXIT.other);
}

function detail(r: ResumeResult): string {
  if (r.outcome === 'downloaded') return ` → ${r.entry.downloadedTo}`;
  if (r.outcome === 'elsewhere')
    return (
      ` (left alone: it belongs to ${describeScope(r.entry)}; resume with that server and key, or \`vidgen forget ` +
      `${r.entry.taskId ?? r.entry.idempotencyKey}\`)`
    );
  return r.error instanceof Error ? ` (${r.error.message})` : '';
}

function toJson(r: ResumeResult) {
  const e = r.entry;
  return {
    id: e.taskId ?? null,
    family: e.family,
    model: e.model,
    idempotency_key: e.idempotencyKey,
    outcome: r.outcome,
    status: e.status ?? null,
    output: e.downloadedTo ?? e.downloadTo ?? null,
    error: r.error instanceof Error ? r.error.message : null,
    server: e.server ?? null,
  };
}

/** `vidgen forget <task-id|idempotency-key>`: drops a journal entry `resume` should no longer chase. */
export async function forgetCommand(ctx: CliContext): Promise<number> {
  const journal = ctx.client.journal;
  if (!journal) throw new UsageError('forget needs the journal; drop --no-journal.');
  const ref = ctx.positional('task-id|idempotency-key');
  const entry = (await journal.list()).find((e) => e.taskId === ref || e.idempotencyKey === ref);
  if (!entry) throw new UsageError(`no journal entry for '${ref}'.`);
  await journal.remove(entry.idempotencyKey);
  ctx.result(
    { forgotten: entry.idempotencyKey, id: entry.taskId ?? null },
    `forgot ${entry.taskId ?? entry.idempotencyKey}`,
  );
  return EXIT.ok;
}
