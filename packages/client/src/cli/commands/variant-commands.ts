import { readFile, stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { FamilyAVideoInput } from '@vidgen/protocol';
import type { NodeVidgenClient } from '../../node/node-vidgen-client.ts';
import { findModel } from '../build-request.ts';
import { numberFlag, requireFlag } from '../cli-args.ts';
import type { CliContext } from '../cli-context.ts';
import { EXIT, UsageError } from '../exit-codes.ts';
import { currentDirectory, defaultOutput, downloadWithNotes, waitWithProgress } from './task-commands.ts';

type Variant = 'edit' | 'extend';

/** `vidgen edit`: a finished video re-rendered with a new prompt. */
export const editCommand = (ctx: CliContext) => variantCommand(ctx, 'edit');
/** `vidgen extend`: a finished video continued by --duration seconds. */
export const extendCommand = (ctx: CliContext) => variantCommand(ctx, 'extend');

async function variantCommand(ctx: CliContext, variant: Variant): Promise<number> {
  const model = await findModel(ctx.client, requireFlag(ctx.flags, 'model'));
  if (model.family !== 'A' || !model.capabilities?.[variant]) {
    // The CLI edits and extends through family A: models of other dialects are no answer here.
    const offering = (await ctx.client.models.list({ signal: ctx.signal })).data
      .filter((m) => m.family === 'A' && m.capabilities?.[variant])
      .map((m) => m.id);
    throw new UsageError(
      `model '${model.id}' does not offer ${variant === 'edit' ? 'edits' : 'extensions'} (models that do: ` +
        `${offering.join(', ') || 'none'}).`,
      EXIT.badRequest,
    );
  }
  const prompt = requireFlag(ctx.flags, 'prompt');
  const submitOnly = ctx.flags['no-download'] === true;
  // Without --output the video goes to `<task id>.mp4` here, as with `vidgen generate`.
  const chosen = ctx.flags.output ? resolve(ctx.flags.output) : undefined;
  const duration = variant === 'extend' ? numberFlag(ctx.flags, 'duration') : undefined;
  if (variant === 'extend' && duration === undefined)
    throw new UsageError('--duration is required: the seconds to add.');
  const video = await videoInput(ctx.client, requireFlag(ctx.flags, 'video'));
  const sound = ctx.flags.audio ? { generate_audio: true } : {};
  const opts = { downloadTo: chosen ?? (submitOnly ? undefined : currentDirectory()), signal: ctx.signal };
  const { request_id: id } =
    variant === 'edit'
      ? await ctx.client.videos.edits.create({ model: model.id, prompt, video, ...sound }, opts)
      : await ctx.client.videos.extensions.create(
          { model: model.id, prompt, video, duration: duration!, ...sound },
          opts,
        );
  ctx.note(`submitted ${id} (${variant}, model ${model.id})`);
  if (submitOnly) {
    ctx.result({ id, family: 'A', model: model.id }, id);
    return EXIT.ok;
  }
  const output = chosen ?? defaultOutput(id);
  const task = await waitWithProgress(ctx, id, 'A');
  const saved = await downloadWithNotes(ctx, { family: 'A', task }, output);
  ctx.result(
    { id, family: 'A', model: model.id, status: task.status, output: saved.path, bytes: saved.bytes },
    saved.path,
  );
  return EXIT.ok;
}

/** An http(s) URL goes as it is, a local file is uploaded, anything else is taken for a request_id. */
async function videoInput(client: NodeVidgenClient, ref: string): Promise<FamilyAVideoInput> {
  if (/^https?:\/\//i.test(ref)) return { url: ref };
  const local = await stat(ref).catch(() => undefined);
  if (local?.isFile()) {
    const bytes = await readFile(ref);
    const file = await client.files.create({
      file: new Blob([bytes], { type: 'video/mp4' }),
      filename: basename(ref),
      purpose: 'video',
    });
    return { file_id: file.id };
  }
  // Task ids have no path separators or extension; such a --video is a file that is not there.
  if (/[\\/]|\.mp4$/i.test(ref)) throw new UsageError(`--video ${ref}: no such file.`);
  return { request_id: ref };
}
