/**
 * Reads `retry-after-ms` (milliseconds) or `Retry-After` (seconds or an HTTP date), as the SDK
 * and the server's relays both must. Undefined when absent or unreadable. Pure and dependency-free
 * (exported on its own subpath) so the zero-dependency SDK can bundle it.
 */
export function parseRetryAfter(headers: Headers | undefined, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const raw = headers.get('retry-after');
  if (raw === null || raw.trim() === '') return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(raw)) return Math.round(Number(raw) * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
