import { ImageRejected } from '../media/image-input.ts';
import { OutputRejected } from '../media/video-probe.ts';
import { VideoRejected } from '../media/video-input.ts';
import { FAILURES, TaskFailure } from '../domain/task-failure.ts';

/**
 * The single place where other modules' typed errors become task failures. Their messages are
 * already written for the caller and are passed on as they are. Undefined: not a known failure
 * (a bug or a fault of the machine), which the engine reports as `internal_error`.
 */
export function toTaskFailure(err: unknown): TaskFailure | undefined {
  if (err instanceof TaskFailure) return err;
  if (err instanceof ImageRejected)
    return err.code === 'image_too_large' ? FAILURES.imageTooLarge(err.message) : FAILURES.imageInvalid(err.message);
  if (err instanceof VideoRejected)
    return err.code === 'video_unsupported'
      ? FAILURES.videoUnsupported(err.message)
      : FAILURES.videoInvalid(err.message);
  if (err instanceof OutputRejected) return FAILURES.invalidOutput(err.message);
  return undefined;
}
