import { APIError } from '../errors.ts';
import type { Transport } from '../core/transport.ts';
import { newIdempotencyKey } from '../core/fingerprint.ts';
import { FAMILY_PATHS } from '../wait/task-view.ts';
import type { Family, ListResponse, Listed } from '../types.ts';

export type Lookup =
  | { kind: 'found'; task: Listed<Record<string, unknown>> }
  /** Nothing matches key, model and time window: the submit has not landed. */
  | { kind: 'absent' }
  /** No listing, or one that ignores the filter: the answer would prove nothing. */
  | { kind: 'unsupported'; reason: string }
  /** The listing could not be reached. */
  | { kind: 'unavailable'; cause: unknown };

export interface LookupQuery {
  family: Family;
  idempotencyKey: string;
  model: string;
  /** Unix ms of the first send. */
  submittedAt: number;
  signal?: AbortSignal;
}

/** Generous, because the window is the server's clock and the submit time is ours. */
const CLOCK_SKEW_S = 600;

/**
 * Looks a submit up in the family's listing by its idempotency key (docs/service-spec.md §1 obligation 2:
 * look up existing tasks before submitting again). Listing items need not echo their key, so
 * when they do not, a second query with a key nobody used checks that the server filters at all.
 * (When both come back empty the filter is unproven, but then no task of that model exists in
 * the window either, so the submit did not land.)
 */
export async function findByIdempotencyKey(transport: Transport, q: LookupQuery): Promise<Lookup> {
  const first = await listWithKey(transport, q, q.idempotencyKey);
  if (first.kind === 'failed') return first.lookup;
  const items = first.body.data;
  if (items.some((t) => typeof t.idempotency_key === 'string')) {
    const match = items.find((t) => t.idempotency_key === q.idempotencyKey);
    return match ? { kind: 'found', task: match } : { kind: 'absent' };
  }
  const canary = await listWithKey(transport, q, newIdempotencyKey());
  if (canary.kind === 'failed') return canary.lookup;
  if (canary.body.data.length > 0) return unsupported('the listing ignores `idempotency_key`');
  return items.length > 0 ? { kind: 'found', task: items[0] } : { kind: 'absent' };
}

type ListAttempt =
  | { kind: 'list'; body: ListResponse<Listed<Record<string, unknown>>> }
  | { kind: 'failed'; lookup: Lookup };

async function listWithKey(transport: Transport, q: LookupQuery, key: string): Promise<ListAttempt> {
  const query = {
    idempotency_key: key,
    model: q.model,
    created_after: Math.floor(q.submittedAt / 1000) - CLOCK_SKEW_S,
    limit: 10,
  };
  try {
    const { data } = await transport.request<unknown>({
      method: 'GET',
      path: FAMILY_PATHS[q.family].list,
      query,
      signal: q.signal,
    });
    const body = data as ListResponse<Listed<Record<string, unknown>>>;
    if (!body || body.object !== 'list' || !Array.isArray(body.data))
      return { kind: 'failed', lookup: unsupported('the listing answer is not a list') };
    return { kind: 'list', body };
  } catch (err) {
    if (err instanceof APIError && err.status !== undefined && [400, 404, 405, 501].includes(err.status)) {
      return { kind: 'failed', lookup: unsupported(`the listing answered ${err.status}`) };
    }
    return { kind: 'failed', lookup: { kind: 'unavailable', cause: err } };
  }
}

function unsupported(reason: string): Lookup {
  return { kind: 'unsupported', reason };
}
