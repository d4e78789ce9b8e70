import type { FastifyBaseLogger } from 'fastify';
import type { BlobStore } from '../../blobs/blob-store.ts';

/** Where the pages (`/` and `/admin`) may play videos from, besides their own origin. */
export interface MediaOriginDeps {
  /** VIDGEN_PUBLIC_URL: signed video links point there, so the page must be allowed to play from it. */
  publicUrl?: string;
  /** With object storage, content links redirect to its presigned URLs: their origin must be playable too. */
  blobs?: Pick<BlobStore, 'presignedGetUrl'>;
  /** Further origins that may serve videos to the page. The page only ever plays links the API hands out. */
  mediaOrigins?: string[];
}

/**
 * Where videos may come from besides this origin. The object store's origin is read off a
 * presigned link (signing is local, nothing is fetched), so it is exactly what redirects hand out.
 */
export async function mediaOrigins(deps: MediaOriginDeps, log: FastifyBaseLogger): Promise<string[]> {
  const origins = [...(deps.publicUrl ? [new URL(deps.publicUrl).origin] : []), ...(deps.mediaOrigins ?? [])];
  if (!deps.blobs?.presignedGetUrl) return origins;
  try {
    const sample = await deps.blobs.presignedGetUrl('console-origin-probe', {
      expiresInSeconds: 60,
      contentType: 'video/mp4',
    });
    return [...origins, new URL(sample).origin];
  } catch (err) {
    log.warn(
      { err },
      'console: could not learn the object store origin; videos redirected there will not play in the console',
    );
    return origins;
  }
}
