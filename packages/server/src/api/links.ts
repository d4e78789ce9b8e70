import type { FastifyRequest } from 'fastify';
import type { Task } from '../engine/task.ts';
import type { UrlSigner } from '../security/url-signer.ts';

export interface LinkOptions {
  signer: UrlSigner;
  /** VIDGEN_PUBLIC_URL; when unset, the base comes from the request's own Host. */
  publicUrl?: string;
  signedUrlTtlSeconds: number;
}

export function contentPath(taskId: string): string {
  return `/v1/videos/${encodeURIComponent(taskId)}/content`;
}

/**
 * An absolute download link that works without the API key, valid for the configured TTL but
 * never past the end of the result's retention.
 */
export function signedContentUrl(request: FastifyRequest, task: Task, keyId: string, opts: LinkOptions, nowMs: number, variant?: string): string {
  const base = (opts.publicUrl ?? `${request.protocol}://${request.host}`).replace(/\/+$/, '');
  const until = Math.min(nowMs + opts.signedUrlTtlSeconds * 1000, task.expiresAt ?? Infinity);
  const { expires, kid, sig } = opts.signer.sign(task.id, keyId, Math.floor(until / 1000));
  const query = `expires=${expires}&kid=${encodeURIComponent(kid)}&sig=${sig}${variant ? `&variant=${variant}` : ''}`;
  return `${base}${contentPath(task.id)}?${query}`;
}
