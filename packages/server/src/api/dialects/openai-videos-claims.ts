import type { IncomingHttpHeaders } from 'node:http';

/** Family A's own listing filters: a listing that uses one is family A's. */
const FAMILY_A_FILTERS = ['status', 'model', 'created_after', 'idempotency_key'];

/**
 * Which requests on the paths shared with family A are the OpenAI dialect's, decided before the
 * body is read (docs/openai-videos.md):
 * - a path that names a `video_…` id: only this dialect makes such ids;
 * - `GET /v1/videos` with `order`, or with a `video_…` cursor in `after`; with one of family A's
 *   filters or another cursor it is family A's; with neither, the `X-Stainless-Lang` header
 *   every official `openai` SDK sends decides, and without it the listing is family A's, as it
 *   always was (the vidgen SDK, CLI and console list family A's tasks).
 */
export function claimsOpenAiVideos(request: { method?: string; url?: string; headers: IncomingHttpHeaders }) {
  const url = request.url ?? '';
  if (!url.startsWith('/v1/videos')) return false;
  if (url.startsWith('/v1/videos/video_')) return true;
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  if (path !== '/v1/videos' || (request.method !== 'GET' && request.method !== 'HEAD')) return false;
  const query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
  if (query.has('order')) return true;
  const after = query.get('after');
  if (after !== null) return after.startsWith('video_');
  if (FAMILY_A_FILTERS.some((name) => query.has(name))) return false;
  return request.headers['x-stainless-lang'] !== undefined;
}
