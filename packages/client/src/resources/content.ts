import type { RequestOptions } from '../types.ts';
import type { ClientCore } from './client-core.ts';

export interface ContentRequestOptions extends RequestOptions {
  /** Absolute link to fetch instead of the task's content path (family A `video.url`). */
  url?: string;
  /** Resume from this byte offset (`Range: bytes=<from>-`). */
  from?: number;
  /** Only resume if the file still has this ETag (`If-Range`); otherwise the whole file comes back. */
  ifRange?: string;
  method?: 'GET' | 'HEAD';
}

/**
 * `GET /v1/videos/{id}/content`: the raw MP4 answer with its body unread. The checks a
 * download must make (spec §4.4, §4.7) live in `@vidgen/client/node`'s `downloadVideo`.
 */
export class Content {
  constructor(private readonly core: ClientCore) {}

  path(taskId: string): string {
    return `/v1/videos/${encodeURIComponent(taskId)}/content`;
  }

  /** Throws the typed error of a non-2xx answer (409 not ready, 410 expired, 403 link expired…). */
  async download(taskId: string, opts: ContentRequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { accept: 'video/mp4', ...opts.headers };
    if (opts.from !== undefined && opts.from > 0) headers.range = `bytes=${opts.from}-`;
    if (headers.range && opts.ifRange) headers['if-range'] = opts.ifRange;
    const { response } = await this.core.transport.request<undefined>({
      method: opts.method ?? 'GET', path: opts.url ?? this.path(taskId), headers, raw: true,
      timeout: opts.timeout, maxRetries: opts.maxRetries, signal: opts.signal,
    });
    return response;
  }
}
