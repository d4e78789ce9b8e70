import { resolve, sep } from 'node:path';
import { APIUserAbortError, NotFoundError } from '../../errors.ts';
import type { DownloadResult, DownloadTarget } from '../../node/download-video.ts';
import type { Family, TaskObject } from '../../types.ts';
import { viewOf } from '../../wait/task-view.ts';
import { familyFlag, numberFlag, secondsFlag } from '../cli-args.ts';
import type { CliContext } from '../cli-context.ts';
import { EXIT, UsageError } from '../exit-codes.ts';
import { writeFileAtomic } from '../../node/atomic-file.ts';
import { ProgressReporter } from '../progress-reporter.ts';
import { WaitInterrupted } from '../wait-interrupted.ts';

/** `vidgen status <id>`: one poll. */
export async function statusCommand(ctx: CliContext): Promise<number> {
  const id = ctx.positional('task-id');
  const { family, task } = await findTask(ctx, id);
  const view = viewOf(family, task);
  const link = family === 'A' ? (task as TaskObject<'A'>).video?.url : (task as TaskObject<'B'>).result_url;
  const extra = [
    view.progress === undefined ? '' : ` ${Math.round(view.progress)}%`,
    view.error ? ` (${view.error.code}: ${view.error.message})` : '',
    link ? `\n${link}` : '',
  ];
  ctx.result({ family, ...task }, `${id}: ${view.status}${extra.join('')}`);
  return EXIT.ok;
}

/** `vidgen wait <id> [--output file]`: polls to the end, then downloads if asked. */
export async function waitCommand(ctx: CliContext): Promise<number> {
  const id = ctx.positional('task-id');
  const family = await familyOf(ctx, id);
  const task = await waitWithProgress(ctx, id, family);
  if (!ctx.flags.output) {
    ctx.result({ family, ...task }, `${id}: ${task.status}`);
    return EXIT.ok;
  }
  const saved = await downloadWithNotes(ctx, targetOf(family, task), resolve(ctx.flags.output));
  ctx.result({ family, ...task, output: saved.path, bytes: saved.bytes }, saved.path);
  return EXIT.ok;
}

/** `vidgen cancel <id>`: the task ends failed (A) or FAILURE (B) with error code `canceled`. */
export async function cancelCommand(ctx: CliContext): Promise<number> {
  const id = ctx.positional('task-id');
  const family = await familyOf(ctx, id);
  const task =
    family === 'A'
      ? await ctx.client.videos.cancel(id, { signal: ctx.signal })
      : await ctx.client.videoGenerations.cancel(id, { signal: ctx.signal });
  const view = viewOf(family, task);
  ctx.result({ family, ...task }, `${id}: ${view.status}${view.error ? ` (${view.error.code})` : ''}`);
  return EXIT.ok;
}

/** Where a task's file goes without --output: named after the task, in the current directory (as `gh run download`). */
export function defaultOutput(id: string, extension = 'mp4'): string {
  return resolve(`${id}.${extension}`);
}

/** The current directory as a journal `downloadTo` naming a directory: with a trailing separator. */
export function currentDirectory(): string {
  const cwd = process.cwd();
  return cwd.endsWith(sep) ? cwd : `${cwd}${sep}`;
}

/** `vidgen download <id> [--output file]`. */
export async function downloadCommand(ctx: CliContext): Promise<number> {
  const id = ctx.positional('task-id');
  const variant = ctx.flags.variant;
  if (variant !== undefined) {
    if (variant !== 'thumbnail' && variant !== 'spritesheet')
      throw new UsageError(`--variant must be thumbnail or spritesheet, got '${variant}'.`);
    const output = ctx.flags.output
      ? resolve(ctx.flags.output)
      : defaultOutput(id, variant === 'thumbnail' ? 'thumbnail.webp' : 'spritesheet.jpg');
    const image = await ctx.client.content.image(id, variant, { signal: ctx.signal });
    await writeFileAtomic(output, image.bytes);
    ctx.result({ id, variant, output, bytes: image.bytes.length, content_type: image.contentType }, output);
    return EXIT.ok;
  }
  const output = ctx.flags.output ? resolve(ctx.flags.output) : defaultOutput(id);
  const family = await familyOf(ctx, id);
  const saved = await downloadWithNotes(ctx, { family, id }, output);
  ctx.result({ id, family, output: saved.path, bytes: saved.bytes, resumed: saved.resumed }, saved.path);
  return EXIT.ok;
}

export async function waitWithProgress<F extends Family>(
  ctx: CliContext,
  id: string,
  family: F,
): Promise<TaskObject<F>> {
  const progress = new ProgressReporter(ctx.io.stderr);
  progress.begin(id);
  try {
    return await ctx.client.waitFor(id, {
      family,
      signal: ctx.signal,
      onProgress: (view, _task, poll) => progress.task(view, poll),
      maxWaitMs: secondsFlag(ctx.flags, 'max-wait'),
      intervalMs: secondsFlag(ctx.flags, 'interval'),
      longPollSeconds: numberFlag(ctx.flags, 'long-poll'),
    });
  } catch (err) {
    if (err instanceof APIUserAbortError && ctx.signal.aborted) throw new WaitInterrupted(id, err);
    throw err;
  } finally {
    progress.done();
  }
}

export async function downloadWithNotes(
  ctx: CliContext,
  target: DownloadTarget,
  output: string,
): Promise<DownloadResult> {
  const progress = new ProgressReporter(ctx.io.stderr);
  let saved: DownloadResult;
  try {
    saved = await ctx.client.download(target, {
      path: output,
      timeoutMs: secondsFlag(ctx.flags, 'download-timeout'),
      signal: ctx.signal,
      onProgress: (received, total) => progress.download(received, total),
    });
  } finally {
    progress.done();
  }
  ctx.note(`saved ${saved.bytes} bytes to ${saved.path}${saved.resumed ? ' (resumed)' : ''}`);
  return saved;
}

function targetOf(family: Family, task: TaskObject<Family>): DownloadTarget {
  return family === 'A'
    ? { family: 'A', task: task as TaskObject<'A'> }
    : { family: 'B', task: task as TaskObject<'B'> };
}

/** --family, else the journal's record of the task, else asked of the server (A's path first). */
async function familyOf(ctx: CliContext, id: string): Promise<Family> {
  const flagged = familyFlag(ctx.flags);
  if (flagged) return flagged;
  const entry = (await ctx.client.journalEntries()).find((e) => e.taskId === id);
  if (entry) return entry.family;
  return (await findTask(ctx, id)).family;
}

async function findTask(ctx: CliContext, id: string): Promise<{ family: Family; task: TaskObject<Family> }> {
  const flagged = familyFlag(ctx.flags);
  const entry = flagged ? undefined : (await ctx.client.journalEntries()).find((e) => e.taskId === id);
  const known = flagged ?? entry?.family;
  if (known) return { family: known, task: await ctx.client.retrieveTask(known, id, { signal: ctx.signal }) };
  try {
    return { family: 'A', task: await ctx.client.retrieveTask('A', id, { signal: ctx.signal }) };
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    return { family: 'B', task: await ctx.client.retrieveTask('B', id, { signal: ctx.signal }) };
  }
}
