/**
 * Looks a create up in the channel's listing by its Idempotency-Key (docs/service-spec.md §1 obligation 2: look up
 * before submitting again). Items need not echo their key, so when they do not, a second query with
 * a key nobody used checks that the upstream filters at all.
 */
import { randomUUID } from 'node:crypto';
import type { RelayChannelConfig } from './relay-config.ts';
import type { RelayDialectSpec } from './relay-dialects.ts';
import { callUpstream, UpstreamCallFailed } from './relay-http.ts';

export type Lookup =
  | { kind: 'found'; id: string }
  /** The listing filters by key and has nothing: the create did not land. */
  | { kind: 'absent' }
  /** No listing, or one that ignores the filter: its answer proves nothing. */
  | { kind: 'unsupported' }
  /** The listing could not be read right now. */
  | { kind: 'unavailable' };

type Listing = { kind: 'items'; items: Record<string, unknown>[] } | { kind: 'failed'; lookup: Lookup };

export async function findUpstreamTask(
  channel: RelayChannelConfig,
  dialect: RelayDialectSpec,
  idempotencyKey: string,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<Lookup> {
  const first = await list(channel, dialect, idempotencyKey, timeoutMs, signal);
  if (first.kind === 'failed') return first.lookup;
  if (first.items.some((t) => typeof t.idempotency_key === 'string')) {
    const match = first.items.find((t) => t.idempotency_key === idempotencyKey);
    return idOf(match, dialect);
  }
  const canary = await list(channel, dialect, `vg-canary-${randomUUID()}`, timeoutMs, signal);
  if (canary.kind === 'failed') return canary.lookup;
  if (canary.items.length > 0) return { kind: 'unsupported' };
  return idOf(first.items[0], dialect);
}

function idOf(item: Record<string, unknown> | undefined, dialect: RelayDialectSpec): Lookup {
  if (!item) return { kind: 'absent' };
  const id = dialect.idOf(item);
  return id ? { kind: 'found', id } : { kind: 'unsupported' };
}

async function list(
  channel: RelayChannelConfig,
  dialect: RelayDialectSpec,
  key: string,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<Listing> {
  if (!dialect.listPath) return { kind: 'failed', lookup: { kind: 'unsupported' } };
  try {
    const answer = await callUpstream(
      channel,
      { method: 'GET', path: dialect.listPath, query: { idempotency_key: key, limit: 10 }, timeoutMs },
      signal,
    );
    if ([400, 404, 405, 501].includes(answer.status)) return { kind: 'failed', lookup: { kind: 'unsupported' } };
    if (answer.status !== 200) return { kind: 'failed', lookup: { kind: 'unavailable' } };
    const data = (answer.body as { data?: unknown } | undefined)?.data;
    if (!Array.isArray(data)) return { kind: 'failed', lookup: { kind: 'unsupported' } };
    return { kind: 'items', items: data.filter((x): x is Record<string, unknown> => !!x && typeof x === 'object') };
  } catch (err) {
    if (err instanceof UpstreamCallFailed) return { kind: 'failed', lookup: { kind: 'unavailable' } };
    throw err;
  }
}
