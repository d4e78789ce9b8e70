import { APIError } from '../../errors.ts';
import type { Family, ListParams } from '../../types.ts';
import { viewOf } from '../../wait/task-view.ts';
import { familyFlag, numberFlag } from '../cli-args.ts';
import type { CliContext } from '../cli-context.ts';
import { EXIT } from '../exit-codes.ts';

/** `vidgen models`: what this key may use, with each model's family and limits. */
export async function modelsCommand(ctx: CliContext): Promise<number> {
  const { data } = await ctx.client.models.list({ signal: ctx.signal });
  const lines = data.map(
    (m) =>
      `${m.id.padEnd(28)} family ${m.family}  ${durationsOf(m.durations)} s  ${m.aspect_ratios.join(' ')}` +
      (m.requires_image ? '  (needs an image)' : ''),
  );
  ctx.result(data, lines.join('\n') || 'no models available to this key');
  return EXIT.ok;
}

interface Row {
  id: string | null;
  family: Family;
  status: string | null;
  model: string;
  created_at: number | null;
  source: 'server' | 'journal';
}

/**
 * `vidgen tasks`: the server's listing (newest first), or this machine's journal with --local or when the server has no
 * listing.
 */
export async function tasksCommand(ctx: CliContext): Promise<number> {
  const rows = ctx.flags.local ? await journalRows(ctx) : await serverRows(ctx);
  const text = rows.map(
    (r) =>
      `${(r.id ?? '(no id)').padEnd(38)} ${r.family} ${(r.status ?? '?').padEnd(12)} ${r.model}` +
      (r.created_at ? `  ${new Date(r.created_at * 1000).toISOString()}` : ''),
  );
  ctx.result(rows, text.join('\n') || 'no tasks');
  return EXIT.ok;
}

/** Each family's listing is asked for `limit` rows, so the newest `limit` of both are among them. */
async function serverRows(ctx: CliContext): Promise<Row[]> {
  const only = familyFlag(ctx.flags);
  const limit = numberFlag(ctx.flags, 'limit') ?? 20;
  const params: ListParams = { limit, status: ctx.flags.status, model: ctx.flags.model, after: ctx.flags.after };
  const rows: Row[] = [];
  try {
    if (only !== 'B')
      for (const t of (await ctx.client.videos.list(params, { signal: ctx.signal })).data) rows.push(serverRow('A', t));
    if (only !== 'A')
      for (const t of (await ctx.client.videoGenerations.list(params, { signal: ctx.signal })).data)
        rows.push(serverRow('B', t));
  } catch (err) {
    if (!(err instanceof APIError) || (err.status !== 404 && err.status !== 405)) throw err;
    ctx.note('this server has no task listing; showing the local journal instead');
    return journalRows(ctx);
  }
  return rows.sort((a, b) => (b.created_at ?? 0) - (a.created_at ?? 0)).slice(0, limit);
}

function serverRow(family: Family, task: Parameters<typeof viewOf>[1] & { created_at: number; model: string }): Row {
  return {
    id: viewOf(family, task).id,
    family,
    status: task.status,
    model: task.model,
    created_at: task.created_at,
    source: 'server',
  };
}

async function journalRows(ctx: CliContext): Promise<Row[]> {
  const entries = await ctx.client.journalEntries();
  const only = familyFlag(ctx.flags);
  const limit = numberFlag(ctx.flags, 'limit') ?? 20;
  return entries
    .filter((e) => !only || e.family === only)
    .reverse()
    .slice(0, limit)
    .map((e) => ({
      id: e.taskId ?? null,
      family: e.family,
      status: e.status ?? e.state,
      model: e.model,
      created_at: Math.floor(e.submittedAt / 1000),
      source: 'journal' as const,
    }));
}

/** "5" or "1-15": the durations a model renders, in seconds. */
function durationsOf(durations: number[]): string {
  return durations.length > 1 ? `${durations[0]}-${durations.at(-1)}` : `${durations[0]}`;
}
