import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from '../errors.ts';
import { backoffDelay, parseRetryAfter, sleep, type BackoffOptions } from './backoff.ts';

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface TransportOptions {
  /** Server root, e.g. `http://127.0.0.1:8080`; paths carry `/v1`. */
  baseURL: string;
  apiKey?: string;
  timeout: number;
  maxRetries: number;
  fetch: FetchLike;
  defaultHeaders: Record<string, string>;
  backoff: BackoffOptions;
  /** A Retry-After longer than this is not waited out: the error goes to the caller. */
  maxRetryAfterMs: number;
}

export type Query = Record<string, string | number | boolean | undefined | null>;

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'HEAD';
  /** Path under the base URL (`/v1/...`), or an absolute URL. */
  path: string;
  query?: Query;
  /** Sent as JSON unless it is FormData. */
  body?: unknown;
  headers?: Record<string, string>;
  timeout?: number;
  maxRetries?: number;
  signal?: AbortSignal;
  /** Hand back the Response with its body unread (downloads). The time-out then covers only the headers. */
  raw?: boolean;
  /** Send the Bearer key (default). Never sent to another origin than the base URL. */
  auth?: boolean;
}

export interface HttpResponse<T> {
  data: T;
  response: Response;
}

/** Codes of failures where the request provably never reached a server. */
const UNDELIVERED_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** HTTP with time-outs, typed errors and retries (408/409/429/5xx and connection errors). */
export class Transport {
  constructor(readonly options: TransportOptions) {}

  get origin(): string {
    return new URL(this.options.baseURL).origin;
  }

  url(path: string, query?: Query): string {
    const url = new URL(/^https?:\/\//i.test(path) ? path : `${this.options.baseURL}${path}`);
    for (const [k, v] of Object.entries(query ?? {}))
      if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
    return url.toString();
  }

  async request<T>(req: HttpRequest): Promise<HttpResponse<T>> {
    const maxRetries = req.maxRetries ?? this.options.maxRetries;
    for (let retry = 0; ; retry++) {
      try {
        return await this.send<T>(req);
      } catch (err) {
        const delay = this.retryDelay(err, retry + 1, maxRetries);
        if (delay === undefined) throw err;
        await sleep(delay, req.signal);
      }
    }
  }

  /** Milliseconds to wait before retry number `retry`, or undefined when `err` must go to the caller. */
  retryDelay(err: unknown, retry: number, maxRetries: number): number | undefined {
    if (retry > maxRetries || !isRetryable(err)) return undefined;
    const retryAfter = err instanceof APIError ? parseRetryAfter(err.headers) : undefined;
    if (retryAfter !== undefined && retryAfter > this.options.maxRetryAfterMs) return undefined;
    return backoffDelay(retry, this.options.backoff, retryAfter);
  }

  /** One attempt, no retry. */
  async send<T>(req: HttpRequest): Promise<HttpResponse<T>> {
    const url = this.url(req.path, req.query);
    const controller = new AbortController();
    const timeoutMs = req.timeout ?? this.options.timeout;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort(req.signal?.reason);
    if (req.signal?.aborted) onAbort();
    req.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const response = await this.options.fetch(url, {
        method: req.method,
        headers: this.headersFor(url, req),
        body: encodeBody(req.body),
        signal: controller.signal,
      });
      if (req.raw && response.ok) return { data: undefined as T, response };
      const text = req.method === 'HEAD' ? '' : await response.text();
      const parsed = parseJson(text);
      if (!response.ok)
        throw APIError.generate(response.status, parsed, response.statusText || 'request failed', response.headers);
      return { data: parsed as T, response };
    } catch (err) {
      throw toTransportError(err, { timedOut, aborted: req.signal?.aborted === true, timeoutMs });
    } finally {
      clearTimeout(timer);
      if (!req.raw) req.signal?.removeEventListener('abort', onAbort);
    }
  }

  private headersFor(url: string, req: HttpRequest): Record<string, string> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...this.options.defaultHeaders,
      ...req.headers,
    };
    if (req.body !== undefined && !(req.body instanceof FormData)) headers['content-type'] = 'application/json';
    // The key belongs to our server only: a signed link on a CDN must never see it.
    const sameOrigin = new URL(url).origin === this.origin;
    if (req.auth !== false && sameOrigin && this.options.apiKey)
      headers.authorization = `Bearer ${this.options.apiKey}`;
    return headers;
  }
}

export function isRetryable(err: unknown): boolean {
  if (err instanceof APIUserAbortError) return false;
  if (err instanceof APIConnectionError) return true;
  if (!(err instanceof APIError) || err.status === undefined) return false;
  return err.status === 408 || err.status === 409 || err.status === 429 || err.status >= 500;
}

/** True when the request cannot have reached the server (so it cannot have created anything). */
export function wasUndelivered(err: unknown): boolean {
  if (err instanceof APIConnectionTimeoutError) return false;
  if (err instanceof APIConnectionError) return UNDELIVERED_CODES.has(err.code ?? '');
  // 408 and 429 are refusals before the request is processed.
  return err instanceof APIError && (err.status === 408 || err.status === 429);
}

function encodeBody(body: unknown): BodyInit | undefined {
  if (body === undefined) return undefined;
  if (body instanceof FormData) return body;
  return JSON.stringify(body);
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function toTransportError(err: unknown, ctx: { timedOut: boolean; aborted: boolean; timeoutMs: number }): unknown {
  if (err instanceof APIError) return err;
  if (ctx.aborted) return new APIUserAbortError(undefined, { cause: err });
  if (ctx.timedOut)
    return new APIConnectionTimeoutError(`Request timed out after ${ctx.timeoutMs} ms.`, { cause: err });
  const code = systemCode(err);
  const detail = code ? ` (${code})` : '';
  return new APIConnectionError(`Connection error${detail}.`, { cause: err, code });
}

/** undici wraps the system error: `TypeError('fetch failed', {cause: {code}})`, sometimes twice. */
function systemCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
