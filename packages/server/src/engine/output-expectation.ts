/**
 * What a finished attempt must have produced (invariant 3, docs/architecture.md), decided by the engine rather
 * than taken on a backend's word. A generation is exactly what was asked. For edits and extensions
 * the input video, as the engine itself probed it, fixes the rules: an edit keeps the input's
 * length and may only shrink its picture (a crop); an extension keeps its size and adds exactly
 * the requested seconds. A backend may say what it made (`GenerationOutput.expect`), and is held
 * to these rules before the file is verified.
 */
import type { GenerationOutput, InputVideo } from '../generators/generator.ts';
import { FAILURES } from '../domain/task-failure.ts';
import { parseRate } from '../media/video-probe.ts';
import type { TaskKind } from '../domain/task.ts';

export interface JobShape {
  width: number;
  height: number;
  /** Seconds: a generation's or edit's output length; the seconds an extension adds. */
  duration: number;
  fps: number;
}

export interface OutputExpectation {
  width: number;
  height: number;
  durationSeconds: number;
  fps: number;
  /** The sound rule: one audio stream of the picture's length, not silent; false: none; absent: unchecked. */
  audio?: boolean;
}

/** The size, rate and length handed to the backend: the request's, or the input video's. */
export function jobShape(kind: TaskKind, params: JobShape, video?: InputVideo): JobShape {
  if (kind === 'generate' || !video)
    return { width: params.width, height: params.height, duration: params.duration, fps: params.fps };
  const even = (v: number) => v - (v % 2);
  const rate = parseRate(video.frameRate) ?? video.frames / video.durationSeconds;
  return {
    width: even(video.width),
    height: even(video.height),
    duration: kind === 'edit' ? video.durationSeconds : params.duration,
    fps: rate,
  };
}

export function expectedOutput(
  kind: TaskKind,
  job: JobShape,
  video: InputVideo | undefined,
  claim: GenerationOutput['expect'],
): OutputExpectation {
  const fps = job.fps;
  if (kind === 'generate' || !video) {
    if (claim && (claim.width !== job.width || claim.height !== job.height || claim.durationSeconds !== job.duration)) {
      throw breach('The backend made a different video than was asked for.');
    }
    return { width: job.width, height: job.height, durationSeconds: job.duration, fps };
  }
  const durationSeconds = kind === 'edit' ? video.durationSeconds : video.durationSeconds + job.duration;
  if (claim && Math.abs(claim.durationSeconds - durationSeconds) > 1 / fps + 0.05) {
    throw breach(
      kind === 'edit'
        ? 'The edit changed the length of the video.'
        : 'The extension does not add the requested seconds.',
    );
  }
  if (kind === 'extend' || !claim) {
    if (claim && (claim.width !== job.width || claim.height !== job.height))
      throw breach('The extension changed the size of the video.');
    return { width: job.width, height: job.height, durationSeconds, fps };
  }
  const fits = (v: number, max: number) => Number.isInteger(v) && v >= 16 && v <= max && v % 2 === 0;
  if (!fits(claim.width, job.width) || !fits(claim.height, job.height))
    throw breach('The edit made the picture larger than the input.');
  return { width: claim.width, height: claim.height, durationSeconds, fps };
}

const breach = (message: string) => FAILURES.invalidOutput(message);
