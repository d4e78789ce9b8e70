import { APIError } from '../../errors.ts';
import type { Family, ListParams, ModelObject } from '../../types.ts';
import { formatUsdTicks } from '../../usd-ticks.ts';
import { viewOf } from '../../wait/task-view.ts';
import { familyFlag, numberFlag } from '../cli-args.ts';
import type { CliContext } from '../cli-context.ts';
import { EXIT } from '../exit-codes.ts';
import { formatTable } from '../table.ts';
import { durationsText } from '../durations-text.ts';

/** `vidgen models`: what this key may use: family, lengths, what each model does and what it costs this account. */
export async function modelsCommand(ctx: CliContext): Promise<number> {
  const [{ data }, metered] = await Promise.all([ctx.client.models.list({ signal: ctx.signal }), isMetered(ctx)]);
  const rows = data.map((m) => [
    m.id,
    m.family,
    durationsText(m.durations),
    offersOf(m),
    soundOf(m),
    priceOf(m),
    m.aspect_ratios.join(' '),
  ]);
  const table = formatTable(['model', 'family', 'seconds', 'offers', 'sound', 'price', 'ratios'], rows);
  ctx.result(data, rows.length > 0 ? table : 'no models available to this key');
  if (metered === false && rows.length > 0 && !ctx.json)
    ctx.note('This account is not metered: its tasks are not charged these prices.');
  return EXIT.ok;
}

/** `--audio` asks for sound: `optional (off)` means a task has sound only when asked. */
function soundOf(m: ModelObject): string {
  if (m.sound.mode !== 'optional') return m.sound.mode;
  return `optional (${m.sound.default ? 'on' : 'off'})`;
}

/** Whether the key's account pays for its tasks; undefined when the server does not say (no /v1/account). */
async function isMetered(ctx: CliContext): Promise<boolean | undefined> {
  try {
    return (await ctx.client.account.retrieve({ signal: ctx.signal })).metered;
  } catch (err) {
    if (err instanceof APIError && (err.status === 404 || err.status === 405)) return undefined;
    throw err;
  }
}

/** "generate (needs an image)", "edit", "generate, edit, extend": the capabilities the server lists. */
function offersOf(m: ModelObject): string {
  const offers = (['generate', 'edit', 'extend'] as const).filter((c) => m.capabilities?.[c]);
  const words = offers.map((c) => (c === 'generate' && m.requires_image ? 'generate (needs an image)' : c));
  return words.join(', ') || 'nothing';
}

/**
 * The price per output second /v1/models lists for this key's account (its price group's, when it has one): by
 * resolution where it differs, plus what sound adds. No pricing means the server charges nothing for the model.
 */
function priceOf(m: ModelObject): string {
  const pricing = m.pricing;
  if (!pricing) return 'no charge';
  const perSecond = (ticks: number) => `${formatUsdTicks(ticks)}/s`;
  const byResolution = Object.entries(pricing.by_resolution ?? {}).filter(
    ([, ticks]) => ticks !== pricing.usd_ticks_per_second,
  );
  const parts = [
    perSecond(pricing.usd_ticks_per_second),
    ...byResolution.map(([resolution, ticks]) => `${resolution} ${perSecond(ticks)}`),
  ];
  const sound = pricing.sound_usd_ticks_per_second ? ` +${perSecond(pricing.sound_usd_ticks_per_second)} sound` : '';
  return parts.join(', ') + sound;
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
  const table = formatTable(
    ['id', 'family', 'status', 'model', 'created'],
    rows.map((r) => [
      r.id ?? '(no id)',
      r.family,
      r.status ?? '?',
      r.model,
      r.created_at ? new Date(r.created_at * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') : '',
    ]),
  );
  ctx.result(rows, rows.length > 0 ? table : 'no tasks');
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
