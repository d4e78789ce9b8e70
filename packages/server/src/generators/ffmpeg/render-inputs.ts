/**
 * A generation's inputs as the renderer uses them: the pictures the video must pass through exactly
 * (first frame, keyframes, last frame: the anchors, in time order), the reference images that shape
 * the scene, and the reference sounds that make the soundtrack's bed. A role it cannot use (a
 * reference video) is refused, never dropped (invariant 4, docs/architecture.md): the catalog
 * declares none for the renderer's models, so only a job built outside the API meets this.
 */
import { FAILURES } from '../../domain/task-failure.ts';
import type { InputRole, ModelInputs } from '../../domain/task-inputs.ts';
import { jobInputs, type GenerationJob } from '../generator.ts';
import { frameShowing } from '../../domain/anchor-frames.ts';

/** A picture the video shows exactly at `atSeconds`. */
export interface Anchor {
  path: string;
  atSeconds: number;
}

/**
 * What the renderer takes (FfmpegRenderer.inputsFor): every role but a reference video. The counts
 * are what its layout and tests cover (references framed in two rows of four); nothing else limits them.
 */
export const RENDERER_INPUTS: ModelInputs = Object.freeze({
  first_frame: true,
  last_frame: true,
  keyframes: 8,
  reference_images: 8,
  reference_audios: 3,
  reference_videos: 0,
  exclusive: [],
}) as ModelInputs;

export interface RenderInputs {
  /** Time order; the first frame at 0 and the last frame at the duration when given. */
  anchors: Anchor[];
  /** Whether the anchors start with the caller's first frame (else the prompt's scene opens the video). */
  startsOnImage: boolean;
  referenceImages: string[];
  referenceAudios: string[];
}

export function renderInputs(job: GenerationJob): RenderInputs {
  const bad = (message: string) => FAILURES.invalidInput(message);
  const of = (role: InputRole) => jobInputs(job, role);
  if (of('reference_video').length > 0) throw bad('The built-in renderer takes no reference video.');
  const first = of('first_frame');
  const last = of('last_frame');
  if (first.length > 1 || last.length > 1) throw bad('A video has one first frame and one last frame.');
  const keyframes = of('keyframe').map((k) => {
    const at = k.atSeconds;
    if (at === undefined || !(at > 0 && at < job.duration))
      throw bad(`A keyframe's time must lie between 0 and ${job.duration} seconds.`);
    return { path: k.path, atSeconds: at };
  });
  const anchors: Anchor[] = [
    ...first.map((f) => ({ path: f.path, atSeconds: 0 })),
    ...keyframes.sort((a, b) => a.atSeconds - b.atSeconds),
    ...last.map((l) => ({ path: l.path, atSeconds: job.duration })),
  ];
  // Each anchor is shown on its own frame: two on one frame could not both be exact. Without a
  // first frame, frame 0 is the prompt's scene.
  if (first.length === 0 && anchors.length > 0 && frameAt(anchors[0].atSeconds, job) === 0)
    throw bad('Keyframes and the first and last frames must fall on different frames.');
  for (let i = 1; i < anchors.length; i++) {
    if (frameAt(anchors[i].atSeconds, job) <= frameAt(anchors[i - 1].atSeconds, job))
      throw bad('Keyframes and the first and last frames must fall on different frames.');
  }
  const referenceAudios = of('reference_audio').map((a) => a.path);
  // Sound is fixed at submit; a bed for a silent video would be an input dropped.
  if (referenceAudios.length > 0 && !job.audio) throw bad('A reference audio needs a video with sound.');
  return {
    anchors,
    startsOnImage: first.length > 0,
    referenceImages: of('reference_image').map((r) => r.path),
    referenceAudios,
  };
}

/** The frame that shows time `seconds`: the last frame shows the duration. */
export function frameAt(seconds: number, job: Pick<GenerationJob, 'fps' | 'duration'>): number {
  return frameShowing(seconds, job.duration, job.fps);
}
