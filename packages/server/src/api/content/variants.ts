import type { Task, TaskResult } from '../../domain/task.ts';
import { VIDEO_VARIANTS, variantKey, type VideoVariant } from '../../engine/video-variants.ts';
import { ApiError, Gone, InvalidRequest } from '../../errors.ts';

/** One file the content route can serve for a task: the video, or one of its images. */
export interface ContentFile {
  blobKey: string;
  etag: string;
  contentType: string;
  filename: string;
  /** The error when the blob is not there. */
  missing(): ApiError;
}

/**
 * `?variant=thumbnail|spritesheet` (OpenAI's content-variant convention) picks an image made from
 * the video; without it, the video. A variant's ETag derives from the video's: it is made from
 * exactly those bytes.
 */
export function contentFile(task: Task, result: TaskResult, variant: string | undefined): ContentFile {
  if (variant === undefined || variant === 'video') {
    return {
      blobKey: result.blobKey,
      etag: result.etag,
      contentType: 'video/mp4',
      filename: `${task.id}.mp4`,
      missing: () => new Gone('video_expired', 'The video is no longer available.'),
    };
  }
  if (!Object.hasOwn(VIDEO_VARIANTS, variant)) {
    throw new InvalidRequest(
      'invalid_variant',
      `\`variant\` '${variant}' is not offered; it offers ${Object.keys(VIDEO_VARIANTS).join(', ')} ` +
        '(or leave it out for the video).',
      'variant',
    );
  }
  const { contentType, extension } = VIDEO_VARIANTS[variant as VideoVariant];
  return {
    blobKey: variantKey(result.blobKey, variant as VideoVariant),
    etag: `${result.etag.slice(0, -1)}-${variant}"`,
    contentType,
    filename: `${task.id}.${variant}.${extension}`,
    missing: () =>
      new ApiError(
        404,
        'not_found_error',
        'variant_not_found',
        `This task has no ${variant}: it was made before they were, or making it failed.`,
        'variant',
      ),
  };
}
