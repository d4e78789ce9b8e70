import type { ContentVariant, RequestOptions } from '../types.ts';
import { DownloadCheckError } from '../task-errors.ts';
import type { ClientCore } from './client-core.ts';

export interface ContentRequestOptions extends RequestOptions {
  /** Absolute link to fetch instead of the task's content path (family A `video.url`). */
  url?: string;
  /** Resume from this byte offset (`Range: bytes=<from>-`). */
  from?: number;
  /** Only resume if the file still has this ETag (`If-Range`); otherwise the whole file comes back. */
  ifRange?: string;
  method?: 'GET' | 'HEAD';
  /**
   * An image made from the video instead of the video: `thumbnail` (a WebP poster) or `spritesheet` (JPEG, 5×2 frames).
   */
  variant?: ContentVariant;
}

/** A poster or sprite sheet, checked: a 2xx image answer whose length matches `Content-Length`. */
export interface ContentImage {
  bytes: Uint8Array;
  contentType: string;
  etag: string | null;
}

/**
 * `GET /v1/videos/{id}/content`: the raw MP4 answer with its body unread. The checks a
 * download must make (docs/service-spec.md §4.4, §4.7) live in `@vidgen/client/node`'s `downloadVideo`.
 */
export class Content {
  constructor(private readonly core: ClientCore) {}

  path(taskId: string, variant?: ContentVariant): string {
    return `/v1/videos/${encodeURIComponent(taskId)}/content${variant ? `?variant=${variant}` : ''}`;
  }

  /**
   * A finished task's poster (`thumbnail`) or sprite sheet, whole and checked. `url` may be a
   * family A `video.thumbnail_url`, which needs no key. Throws NotFoundError (`variant_not_found`)
   * for a task made before posters were.
   */
  async image(
    taskId: string,
    variant: ContentVariant,
    opts: Omit<ContentRequestOptions, 'variant' | 'from' | 'ifRange' | 'method'> = {},
  ): Promise<ContentImage> {
    const response = await this.download(taskId, { ...opts, variant });
    const contentType = response.headers.get('content-type') ?? '';
    if (!contentType.startsWith('image/')) {
      await response.body?.cancel();
      throw new DownloadCheckError('content_type', `expected an image, got '${contentType}'.`);
    }
    const bytes = new Uint8Array(await response.arrayBuffer());
    const declared = response.headers.get('content-length');
    if (declared !== null && Number(declared) !== bytes.length) {
      throw new DownloadCheckError('length', `Content-Length said ${declared} bytes, ${bytes.length} arrived.`, {
        interrupted: true,
      });
    }
    return { bytes, contentType, etag: response.headers.get('etag') };
  }

  /** Throws the typed error of a non-2xx answer (409 not ready, 410 expired, 403 link expired…). */
  async download(taskId: string, opts: ContentRequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { accept: opts.variant ? 'image/*' : 'video/mp4', ...opts.headers };
    if (opts.from !== undefined && opts.from > 0) headers.range = `bytes=${opts.from}-`;
    if (headers.range && opts.ifRange) headers['if-range'] = opts.ifRange;
    const { response } = await this.core.transport.request<undefined>({
      method: opts.method ?? 'GET',
      path: opts.url ?? this.path(taskId, opts.variant),
      headers,
      raw: true,
      timeout: opts.timeout,
      maxRetries: opts.maxRetries,
      signal: opts.signal,
    });
    return response;
  }
}
