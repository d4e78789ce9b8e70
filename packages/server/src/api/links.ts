import type { FastifyRequest } from 'fastify';
import type { Task } from '../domain/task.ts';
import type { UrlSigner } from '../security/url-signer.ts';

export interface LinkOptions {
  signer: UrlSigner;
  /** VIDGEN_PUBLIC_URL: the base of every absolute link when set. */
  publicUrl?: string;
  /**
   * Without a public URL: build the base from X-Forwarded-Proto/-Host, which Fastify reads only
   * from the proxies VIDGEN_TRUST_PROXY names. Otherwise the base is the address the connection
   * came in on: never the request's own Host header, which any client can set.
   */
  trustProxy?: boolean;
  signedUrlTtlSeconds: number;
}

/**
 * The key id of a link minted for the operator (`GET /admin/v1/tasks/{id}`): no API key asked for it,
 * so it names the task's account instead, and the signature covers that name. It lives until it expires.
 */
export const OPERATOR_LINK_PREFIX = 'operator:';

export function contentPath(taskId: string): string {
  return `/v1/videos/${encodeURIComponent(taskId)}/content`;
}

/**
 * An absolute download link that works without the API key, valid for the configured TTL but
 * never past the end of the result's retention.
 */
export function signedContentUrl(
  request: FastifyRequest,
  task: Task,
  keyId: string,
  opts: LinkOptions,
  nowMs: number,
  variant?: string,
): string {
  return signedLink(linkBase(request, opts), task, keyId, opts, nowMs, variant);
}

/** The same link with the base given (no request to take it from: a webhook delivery). */
export function signedLink(
  baseUrl: string,
  task: Task,
  keyId: string,
  opts: LinkOptions,
  nowMs: number,
  variant?: string,
): string {
  const base = baseUrl.replace(/\/+$/, '');
  const until = Math.min(nowMs + opts.signedUrlTtlSeconds * 1000, task.expiresAt ?? Infinity);
  const { expires, kid, sig } = opts.signer.sign(task.id, keyId, Math.floor(until / 1000));
  const query = `expires=${expires}&kid=${encodeURIComponent(kid)}&sig=${sig}${variant ? `&variant=${variant}` : ''}`;
  return `${base}${contentPath(task.id)}?${query}`;
}

/** The longest a file's signed link lives: xAI's longest `public_url.expires_after`, 30 days. */
const MAX_FILE_LINK_SECONDS = 2_592_000;

/**
 * A link to one of the account's files that works without the key (`storage_options.public_url`):
 * `seconds` long (30 days when absent), never past the file's own expiry.
 */
export function signedFileUrl(
  request: FastifyRequest,
  fileId: string,
  keyId: string,
  opts: LinkOptions,
  nowMs: number,
  seconds: number | undefined,
  fileExpiresAt: number | null,
): { url: string; expiresAt: number } {
  const until = Math.min(nowMs + (seconds ?? MAX_FILE_LINK_SECONDS) * 1000, fileExpiresAt ?? Infinity);
  const { expires, kid, sig } = opts.signer.sign(fileId, keyId, Math.floor(until / 1000));
  const path = `/v1/files/${encodeURIComponent(fileId)}/content`;
  const query = `expires=${expires}&kid=${encodeURIComponent(kid)}&sig=${sig}`;
  return {
    url: `${linkBase(request, opts).replace(/\/+$/, '')}${path}?${query}`,
    expiresAt: expires,
  };
}

function linkBase(request: FastifyRequest, opts: LinkOptions): string {
  return opts.publicUrl ?? (opts.trustProxy ? `${request.protocol}://${request.host}` : listenerBase(request));
}

/** Where this connection reached the server: a base no header can change. */
function listenerBase(request: FastifyRequest): string {
  const { localAddress = '127.0.0.1', localPort } = request.raw.socket;
  const address = localAddress.replace(/^::ffff:/, '');
  return `${request.protocol}://${address.includes(':') ? `[${address}]` : address}:${localPort}`;
}

/** The base links use, as the start-up log states it once. */
export function describeLinkBase(opts: Pick<LinkOptions, 'publicUrl' | 'trustProxy'>, listenUrl: string): string {
  if (opts.publicUrl) return `${opts.publicUrl} (VIDGEN_PUBLIC_URL)`;
  if (opts.trustProxy) return 'X-Forwarded-Proto/-Host of trusted proxies (VIDGEN_TRUST_PROXY)';
  return (
    `the address each connection came in on, e.g. ${listenUrl} (set VIDGEN_PUBLIC_URL for links that work behind a ` +
    `proxy)`
  );
}
