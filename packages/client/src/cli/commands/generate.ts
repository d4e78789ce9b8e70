import { resolve } from 'node:path';
import type { FamilyATask, FamilyBTaskObject } from '../../types.ts';
import { buildRequest, type BuiltRequest } from '../build-request.ts';
import type { CliContext } from '../cli-context.ts';
import { EXIT } from '../exit-codes.ts';
import { currentDirectory, defaultOutput, downloadWithNotes, waitWithProgress } from './task-commands.ts';

/**
 * `vidgen generate`: submit, wait with progress, download (to --output, else `<task id>.mp4` in the current directory);
 * every step journaled so `resume` can finish it.
 */
export async function generateCommand(ctx: CliContext): Promise<number> {
  const chosen = ctx.flags.output ? resolve(ctx.flags.output) : undefined;
  const request = await buildRequest(ctx.client, ctx.flags);
  // The task id names the default file, and it is only known once the server answers: the journal keeps the
  // directory, and resume names the file the same way (see `downloadTo` in journal/task-journal.ts).
  const id = await submitBuilt(ctx, request, chosen ?? currentDirectory());
  const output = chosen ?? defaultOutput(id);
  const task = await waitWithProgress(ctx, id, request.family);
  const target =
    request.family === 'A'
      ? { family: 'A' as const, task: task as FamilyATask }
      : { family: 'B' as const, task: task as FamilyBTaskObject };
  const saved = await downloadWithNotes(ctx, target, output);
  ctx.result(
    {
      id,
      family: request.family,
      model: request.model.id,
      status: task.status,
      output: saved.path,
      bytes: saved.bytes,
    },
    saved.path,
  );
  return EXIT.ok;
}

/** `vidgen submit`: submit only; prints the task id. With --output, `vidgen resume` later downloads there. */
export async function submitCommand(ctx: CliContext): Promise<number> {
  const output = ctx.flags.output ? resolve(ctx.flags.output) : undefined;
  const request = await buildRequest(ctx.client, ctx.flags);
  const id = await submitBuilt(ctx, request, output);
  ctx.result({ id, family: request.family, model: request.model.id }, id);
  return EXIT.ok;
}

async function submitBuilt(ctx: CliContext, request: BuiltRequest, output: string | undefined): Promise<string> {
  const opts = { downloadTo: output, signal: ctx.signal };
  const id =
    request.family === 'A'
      ? (await ctx.client.videos.generate(request.body, opts)).request_id
      : (await ctx.client.videoGenerations.create(request.body, opts)).task_id;
  ctx.note(`submitted ${id} (family ${request.family}, model ${request.model.id})`);
  return id;
}
