import type { IncomingHttpHeaders } from 'node:http';

/** The token `@openrouter/ai-sdk-provider` adds to every request's User-Agent (its `dist/index.js`, `getHeaders`). */
const OPENROUTER_AGENT = 'ai-sdk/openrouter';

/** Whether the request comes from OpenRouter's AI SDK provider, by its User-Agent. */
export function sentByOpenRouterProvider(headers: IncomingHttpHeaders): boolean {
  return headers['user-agent']?.includes(OPENROUTER_AGENT) ?? false;
}

/**
 * Which requests on `/v1/videos` paths are OpenRouter's shape, decided before the body is read
 * (docs/openai-videos.md):
 * - a path that names a `job-…` id: only this shape makes such ids;
 * - the listing `GET /v1/videos` with a `job-…` cursor in `after`, or from OpenRouter's provider.
 * Its creates are claimed by their body or User-Agent (`OpenRouterVideoClaim`, `sentByOpenRouterProvider`).
 */
export function claimsOpenRouterVideos(request: { method?: string; url?: string; headers: IncomingHttpHeaders }) {
  const url = request.url ?? '';
  if (url.startsWith('/v1/videos/job-')) return true;
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  if (path !== '/v1/videos' || (request.method !== 'GET' && request.method !== 'HEAD')) return false;
  const after = new URLSearchParams(q < 0 ? '' : url.slice(q + 1)).get('after');
  if (after !== null) return after.startsWith('job-');
  return sentByOpenRouterProvider(request.headers);
}
