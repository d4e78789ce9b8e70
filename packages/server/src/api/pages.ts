import { InvalidRequest } from '../errors.ts';

/** `?limit=` of a listing: an integer from 1 to 100, 20 when absent. */
export function pageLimitOf(limit: string | undefined): number {
  // Decimal digits only: `Number()` would also take `1e1`, `0x10` and ` 5`.
  const n = limit === undefined ? 20 : /^\d{1,3}$/.test(limit) ? Number(limit) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > 100)
    throw new InvalidRequest('invalid_limit', '`limit` must be an integer from 1 to 100.', 'limit');
  return n;
}

/**
 * A page of a listing from rows read with one more than `limit`: whether more follow, and the
 * cursor (`?after=`) that asks for them.
 */
export function pageOf<Row, Wire extends { id: string }>(
  rows: readonly Row[],
  limit: number,
  toWire: (row: Row) => Wire,
) {
  const data = rows.slice(0, limit).map(toWire);
  return { object: 'list' as const, data, has_more: rows.length > limit, last_id: data.at(-1)?.id ?? null };
}

/** The page a listing's query asks for: `fetch` reads up to `limit` rows after the cursor `after`. */
export async function readPage<Row, Wire extends { id: string }>(
  query: { limit?: string; after?: string },
  fetch: (page: { limit: number; after?: string }) => Promise<readonly Row[]>,
  toWire: (row: Row) => Wire,
) {
  const limit = pageLimitOf(query.limit);
  return pageOf(await fetch({ limit: limit + 1, after: query.after || undefined }), limit, toWire);
}
