/**
 * One JSON call to an upstream channel. The base URL is the operator's own configuration, so the
 * plain fetch is used here (downloads of URLs the upstream hands out go elsewhere). What matters
 * is telling "never sent" from "maybe sent": only the first lets a submit go to another channel.
 */
import type { RelayChannelConfig } from './relay-config.ts';

export interface UpstreamRequest {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  timeoutMs: number;
}

export interface UpstreamAnswer {
  status: number;
  headers: Headers;
  /** Parsed JSON, or undefined when the body was empty or not JSON. */
  body: unknown;
}

/**
 * The call got no HTTP answer. `sent: 'no'` only when the connection was never made (refused,
 * unresolvable, TLS refused), so the upstream cannot have seen the request.
 */
export class UpstreamCallFailed extends Error {
  constructor(readonly sent: 'no' | 'maybe') {
    super(sent === 'no' ? 'the upstream could not be reached' : 'the upstream answer was lost');
  }
}

const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'SELF_SIGNED_CERT_IN_CHAIN',
]);
/** Error and status bodies are small; a larger one is cut rather than buffered. */
const MAX_JSON_BYTES = 1024 * 1024;

export function upstreamUrl(channel: RelayChannelConfig, path: string, query?: UpstreamRequest['query']): string {
  const url = new URL(channel.baseUrl + path);
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  return url.href;
}

export async function callUpstream(
  channel: RelayChannelConfig,
  req: UpstreamRequest,
  signal: AbortSignal,
): Promise<UpstreamAnswer> {
  const headers: Record<string, string> = {
    authorization: channel.apiKey.header(channel.authScheme),
    accept: 'application/json',
    ...req.headers,
  };
  if (req.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(upstreamUrl(channel, req.path, req.query), {
      method: req.method,
      headers,
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      redirect: 'manual',
      signal: AbortSignal.any([signal, AbortSignal.timeout(req.timeoutMs)]),
    });
  } catch (err) {
    throw new UpstreamCallFailed(neverSent(err) ? 'no' : 'maybe');
  }
  try {
    return {
      status: response.status,
      headers: response.headers,
      body: parseJson(await readCapped(response, MAX_JSON_BYTES)),
    };
  } catch {
    // The status line arrived but the body did not: the status still stands.
    return { status: response.status, headers: response.headers, body: undefined };
  }
}

/** Walks the cause chain (undici wraps socket errors; happy eyeballs aggregates them). */
function neverSent(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 5) return false;
  const e = err as { code?: unknown; cause?: unknown; errors?: unknown[] };
  if (typeof e.code === 'string' && NOT_SENT_CODES.has(e.code)) return true;
  if (Array.isArray(e.errors) && e.errors.length > 0 && e.errors.every((x) => neverSent(x, depth + 1))) return true;
  return neverSent(e.cause, depth + 1);
}

async function readCapped(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    total += chunk.length;
    if (total > maxBytes) {
      await response.body.cancel().catch(() => undefined);
      break;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The error of an answer in any of the shapes upstreams use: OpenAI's `{error: {code, type,
 * message}}`, new-api's `{code, message, data}`, and xAI's `{code: "<status text>", error: "<message>"}`
 * (xai-sdk-ts src/errors.ts reads both). `message` is for classifying only: it may quote the key.
 */
export function errorOf(body: unknown): { code?: string; type?: string; message?: string } {
  const b = body as { error?: unknown; code?: unknown; type?: unknown; message?: unknown } | undefined;
  const e =
    b?.error && typeof b.error === 'object' ? (b.error as { code?: unknown; type?: unknown; message?: unknown }) : b;
  const message = typeof e?.message === 'string' ? e.message : typeof b?.error === 'string' ? b.error : undefined;
  return {
    code: typeof e?.code === 'string' ? e.code : undefined,
    type: typeof e?.type === 'string' ? e.type : undefined,
    message,
  };
}
