import { FAILURES } from '../domain/task-failure.ts';
import type { GenerationJob } from './generator.ts';

/** The largest side and the longest video any local renderer makes (a minute at 60 fps). */
const MAX_SIDE = 4096;
const MAX_FRAMES = 60 * 60;

/**
 * The finished video's frame count, or an `invalid_input` failure for a size, rate or duration
 * that no local renderer (the built-in one, ComfyUI) can encode exactly as asked.
 */
export function frameCountOf(job: GenerationJob): number {
  const bad = (message: string) => FAILURES.invalidInput(message);
  for (const [name, v] of [
    ['width', job.width],
    ['height', job.height],
  ] as const) {
    // yuv420p halves chroma in both directions, so H.264 here needs even sides.
    if (!Number.isInteger(v) || v < 16 || v > MAX_SIDE || v % 2 !== 0)
      throw bad(`The ${name} must be an even number of pixels from 16 to ${MAX_SIDE}.`);
  }
  if (!(job.fps > 0 && job.fps <= 120)) throw bad('The frame rate must be above 0 and at most 120.');
  const frames = Math.round(job.duration * job.fps);
  if (!(job.duration > 0) || frames < 1 || frames > MAX_FRAMES) throw bad('The duration is out of range.');
  return frames;
}
