import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { BlobStore } from '../blobs/blob-store.ts';
import { CONTENT_VARIANT_MEDIA_TYPES } from '@vidgen/protocol';

/**
 * Images served beside a task's video (`GET /v1/videos/{id}/content?variant=`), with the media
 * types the protocol declares: the OpenAPI document and the bytes agree. media/poster.ts makes them.
 */
export const VIDEO_VARIANTS = {
  thumbnail: { contentType: CONTENT_VARIANT_MEDIA_TYPES.thumbnail, extension: 'webp' },
  spritesheet: { contentType: CONTENT_VARIANT_MEDIA_TYPES.spritesheet, extension: 'jpg' },
} as const;
export type VideoVariant = keyof typeof VIDEO_VARIANTS;

/**
 * Where an attempt's video is stored. Task ids are UUIDv7, time first: seven hex digits make one
 * directory per ~17 minutes of tasks, which the local disk store makes once and remembers; a
 * directory per task cost a mkdir for every task (a quarter of a no-op task, bench/engine.bench.ts)
 * and stayed behind, empty, after retention removed its files. The attempt's lease token in the
 * name keeps a zombie attempt's file apart from the owner's.
 */
export function videoKey(taskId: string, token: number): string {
  return `videos/${taskId.slice(0, 7)}/${taskId}.${token}.mp4`;
}

/** Where a variant of the video stored under `videoKey` lives: beside it, named after it. */
export function variantKey(videoKey: string, variant: VideoVariant): string {
  return `${videoKey.replace(/\.mp4$/, '')}.${variant}.${VIDEO_VARIANTS[variant].extension}`;
}

/** Every blob a task's result consists of: the video first, then its variants. */
export function resultKeys(videoKey: string): string[] {
  return [videoKey, ...(Object.keys(VIDEO_VARIANTS) as VideoVariant[]).map((v) => variantKey(videoKey, v))];
}

export type MakeStills = (
  video: string,
  durationSeconds: number,
  dir: string,
) => Promise<Array<{ variant: VideoVariant; path: string }>>;

/**
 * Makes and stores the variants of a verified video before the task completes, so a done task has
 * its poster. They are a convenience: a failure is logged and the task still succeeds (its
 * variants then answer 404).
 */
export async function storeVariants(
  blobs: BlobStore,
  makeStills: MakeStills,
  videoKey: string,
  video: { path: string; durationSeconds: number },
  workDir: { readonly path: string },
  log: Logger,
): Promise<void> {
  try {
    // The attempt's work directory is made on first use: a work root that cannot be written only costs the variants.
    const dir = await mkdtemp(join(workDir.path, 'stills-'));
    for (const still of await makeStills(video.path, video.durationSeconds, dir)) {
      await blobs.putFile(variantKey(videoKey, still.variant), still.path, VIDEO_VARIANTS[still.variant].contentType);
    }
  } catch (err) {
    log.warn({ err }, 'poster or sprite sheet not made; the video is served without them');
  }
}

/** Deletes a result's blobs; a variant never made is no error. */
export async function deleteResult(blobs: BlobStore, videoKey: string): Promise<void> {
  for (const key of resultKeys(videoKey)) await blobs.delete(key);
}
