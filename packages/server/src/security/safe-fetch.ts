/**
 * The one way the server fetches a user-supplied URL (invariant 5, docs/architecture.md).
 * Implementation lives below this interface; see safe-fetch-options for the limits.
 */
export interface SafeFetchOptions {
  /** Allow loopback/private/link-local targets (development and tests only). */
  allowPrivate: boolean;
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  /**
   * What the URL should hold; refusal messages name it ("The video URL answered with…") so callers pass them on as they
   * are.
   */
  what: 'image' | 'video' | 'audio' | 'file' | 'webhook' | 'upload';
}

export interface FetchedBody {
  bytes: Buffer;
  contentType: string | null;
  /** The URL the bytes finally came from, after redirects. */
  finalUrl: string;
}

/** Why a fetch was refused or failed; `message` is safe to show the caller. */
export class FetchRefused extends Error {
  constructor(
    readonly code:
      | 'url_invalid'
      | 'url_forbidden'
      | 'url_unreachable'
      | 'url_timeout'
      | 'url_too_large'
      | 'url_http_error',
    message: string,
    /** For `url_http_error`: the status the URL answered (a relay reads 404/410 as an expired result link). */
    readonly status?: number,
    /** For `url_too_large`: the most bytes the fetch takes. */
    readonly limitBytes?: number,
  ) {
    super(message);
  }
}

export type SafeFetch = (url: string, signal?: AbortSignal) => Promise<FetchedBody>;

/**
 * A POST through the same guards (webhook deliveries): the answer's status, whatever it is; redirects are not followed.
 */
export type SafePost = (
  url: string,
  request: { body: string; headers: Record<string, string> },
  signal?: AbortSignal,
) => Promise<{ status: number }>;

/**
 * A PUT of a file (a finished video to the caller's `output.upload_url`) through the same guards:
 * the answer's status, whatever it is; redirects are not followed (a redirect would re-send the
 * bytes to a host the caller never named).
 */
export type SafePut = (
  url: string,
  file: { path: string; bytes: number; contentType: string },
  signal?: AbortSignal,
) => Promise<{ status: number }>;
