/**
 * One JSON call to an upstream channel. The base URL is the operator's own configuration, so the
 * plain fetch is used here (downloads of URLs the upstream hands out go elsewhere). What matters
 * is telling "never sent" from "maybe sent": only the first lets a submit go to another channel.
 */
import type { RelayChannelConfig } from './relay-config.ts';

export interface UpstreamRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  /** `multipart`: the body's fields as form parts (servers that read only forms, or a file going along). */
  encoding?: 'json' | 'multipart';
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
    ...channel.apiKey.headers(channel.authScheme),
    accept: 'application/json',
    ...req.headers,
  };
  const multipart = req.encoding === 'multipart' && req.body !== undefined;
  // fetch sets the multipart content type itself, with its boundary.
  if (req.body !== undefined && !multipart) headers['content-type'] = 'application/json';
  let response: Response;
  const started = performance.now();
  try {
    response = await fetch(upstreamUrl(channel, req.path, req.query), {
      method: req.method,
      headers,
      body: req.body === undefined ? undefined : multipart ? formOf(req.body) : JSON.stringify(req.body),
      redirect: 'manual',
      signal: AbortSignal.any([signal, AbortSignal.timeout(req.timeoutMs)]),
    });
  } catch (err) {
    channel.observe?.(performance.now() - started, false);
    throw new UpstreamCallFailed(neverSent(err) ? 'no' : 'maybe');
  }
  channel.observe?.(performance.now() - started, answeredHealthy(response.status));
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

/** An answer of a working channel: not a server error, not throttled, and the key taken. */
export function answeredHealthy(status: number): boolean {
  return status < 500 && status !== 429 && status !== 401 && status !== 403;
}

/**
 * A JSON object as form parts, the way the OpenAI SDKs and curl `-F` send them: a data URI becomes a
 * file part (`input_reference`, `video`), an object a JSON string (vLLM-Omni reads `extra_params`
 * and `lora` that way), anything else its text.
 */
export function formOf(body: unknown): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries((body ?? {}) as Record<string, unknown>)) {
    if (value === undefined || value === null) continue;
    const file = typeof value === 'string' ? /^data:([\w.+-]+\/[\w.+-]+);base64,(.*)$/s.exec(value) : null;
    if (file) {
      const subtype = file[1].split('/')[1];
      const extension =
        ({ jpeg: 'jpg', mpeg: 'mp3', mp4: file[1].startsWith('audio/') ? 'm4a' : 'mp4' } as Record<string, string>)[
          subtype
        ] ?? subtype;
      form.append(name, new Blob([Buffer.from(file[2], 'base64')], { type: file[1] }), `${name}.${extension}`);
    } else form.append(name, typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  return form;
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
 * (xai-sdk-ts src/errors.ts reads both), Google's `{error: {code: 400, message, status:
 * "INVALID_ARGUMENT"}}` (its `status` is the word), and FastAPI's `{detail}` (vLLM-Omni, SGLang).
 * `message` is for classifying only: it may quote the key.
 */
export function errorOf(body: unknown): { code?: string; type?: string; message?: string } {
  const b = body as
    | { error?: unknown; code?: unknown; type?: unknown; message?: unknown; detail?: unknown }
    | undefined;
  const e =
    b?.error && typeof b.error === 'object'
      ? (b.error as { code?: unknown; type?: unknown; message?: unknown; status?: unknown })
      : (b as { code?: unknown; type?: unknown; message?: unknown; status?: unknown } | undefined);
  const message =
    typeof e?.message === 'string'
      ? e.message
      : typeof b?.error === 'string'
        ? b.error
        : typeof b?.detail === 'string'
          ? b.detail
          : undefined;
  return {
    code: typeof e?.code === 'string' ? e.code : e !== b && typeof e?.status === 'string' ? e.status : undefined,
    type: typeof e?.type === 'string' ? e.type : undefined,
    message,
  };
}
