import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ConsoleAsset } from '@vidgen/console/assets';

/** One file of a console, in the encoding the client takes best, with its validator and the given headers. */
export function sendAsset(
  request: FastifyRequest,
  reply: FastifyReply,
  asset: ConsoleAsset,
  headers: Record<string, string>,
) {
  const encoding = pickEncoding(request.headers['accept-encoding']);
  // Each encoding is its own representation, so it gets its own validator.
  const etag = encoding === 'identity' ? asset.etag : `${asset.etag.slice(0, -1)}-${encoding}"`;
  reply
    .headers(headers)
    .header('content-type', asset.contentType)
    .header('cache-control', asset.cacheControl)
    .header('etag', etag)
    .header('vary', 'accept-encoding');
  if (request.headers['if-none-match'] === etag) return reply.code(304).send();
  if (encoding !== 'identity') reply.header('content-encoding', encoding);
  return reply.send(encoding === 'br' ? asset.br : encoding === 'gzip' ? asset.gzip : asset.identity);
}

/** Brotli, else gzip, else plain; a coding listed with `q=0` is refused by the client. */
function pickEncoding(header: string | string[] | undefined): 'br' | 'gzip' | 'identity' {
  const accepted = new Set<string>();
  for (const part of String(header ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const refused = params.some((p) => /^\s*q=0(\.0*)?\s*$/.test(p));
    if (name && !refused) accepted.add(name);
  }
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip') || accepted.has('*')) return 'gzip';
  return 'identity';
}
