/**
 * A generation's pictures, ready to stream: what the canvases are, how the camera moves over them
 * and how the references colour them, from the job's inputs (render-inputs.ts).
 *
 * - No anchor but a first frame (or none): a free shot (camera-shot.ts) over one canvas, the first
 *   image or the prompt's scene, exactly as without references when there are none (shot-frames.ts).
 * - A last frame or keyframes: an anchored shot (anchored-shot.ts, anchored-frames.ts) through every
 *   anchor, opened by the prompt's scene when no first frame is given.
 * - Reference images: the drawn scene shows them framed (reference-frames.ts), and is graded to their
 *   colours (colour-grade.ts) at full strength; frames from the caller's own pictures are graded at
 *   IMAGE_GRADE at most, rising away from them and back to none on every anchor's own frame.
 */
import type { GenerationJob } from '../generator.ts';
import { anchoredFrames, type AnchorPicture } from './anchored-frames.ts';
import { planAnchoredShot, REST } from './anchored-shot.ts';
import { createKernels } from './bilinear-kernels.ts';
import { easeInOut, parseCameraMotion, type CameraMotion } from './camera-move.ts';
import { planShot } from './camera-shot.ts';
import { referenceColours } from './colour-grade.ts';
import { colourStats, packedYuv420, type ColourStats } from './frame-colour.ts';
import { FrameResampler, type Size } from './frame-resampler.ts';
import { canvasSize, imageCanvas, imageCanvases, sceneCanvas, type Canvas } from './render-canvas.ts';
import { frameAt, type RenderInputs } from './render-inputs.ts';
import { withReferenceFrames } from './reference-frames.ts';
import { sceneParticles } from './scene-particles.ts';
import { seededRandom } from './seeded-random.ts';
import { shotFrames } from './shot-frames.ts';

/** The most a grade moves the caller's own pictures towards the references' colours. */
export const IMAGE_GRADE = 0.6;

export interface FrameSource {
  frames: Iterable<Buffer>;
  textToVideo: boolean;
  anchored: boolean;
}

export async function frameSource(
  job: GenerationJob,
  inputs: RenderInputs,
  output: Size,
  frames: number,
): Promise<FrameSource> {
  const motion = parseCameraMotion(job.prompt);
  const references = inputs.referenceImages.length > 0 ? await referenceColours(inputs.referenceImages) : undefined;
  const anchored = inputs.anchors.length > (inputs.startsOnImage ? 1 : 0);
  if (anchored) return anchoredSource(job, inputs, motion, output, frames, references);
  const shot = planShot(motion, job.duration, seededRandom(`camera\u0000${job.prompt}`, job.seed ?? 0));
  const size = canvasSize(output, shot.maxZoom);
  const first = inputs.anchors[0];
  const canvas = first ? await imageCanvas(first.path, size) : await scene(job, inputs, size);
  const resampler = new FrameResampler(createKernels(), canvas, output);
  const particles = first ? undefined : sceneParticles(job.prompt, job.seed, output);
  const tone = references && {
    canvas: colourStats(resampler.frame(REST), output),
    to: references,
    strengthAt: first ? (t: number) => IMAGE_GRADE * easeInOut(t) : () => 1,
  };
  return {
    frames: shotFrames(resampler, output, shot, frames, job.duration, particles, tone),
    textToVideo: !first,
    anchored: false,
  };
}

async function anchoredSource(
  job: GenerationJob,
  inputs: RenderInputs,
  motion: CameraMotion,
  output: Size,
  frames: number,
  references: ColourStats | undefined,
): Promise<FrameSource> {
  const times = [...(inputs.startsOnImage ? [] : [0]), ...inputs.anchors.map((a) => a.atSeconds)];
  const rnd = seededRandom(`camera\u0000${job.prompt}`, job.seed ?? 0);
  const shot = planAnchoredShot(
    motion,
    times.map((t) => frameAt(t, job)),
    frames,
    frames > 1 ? job.duration / (frames - 1) : job.duration,
    rnd,
  );
  const size = canvasSize(output, shot.maxZoom);
  const pictures: AnchorPicture[] = [];
  if (!inputs.startsOnImage) pictures.push({ canvas: await scene(job, inputs, size) });
  for (const anchor of inputs.anchors) {
    const [canvas, framed] = await imageCanvases(anchor.path, [size, output]);
    pictures.push({ canvas, exact: packedYuv420(framed.data, output) });
  }
  const grade = references && {
    to: references,
    atAnchor: pictures.map((p) => (p.exact ? 0 : 1)),
    between: IMAGE_GRADE,
  };
  return { frames: anchoredFrames(pictures, shot, frames, output, grade), textToVideo: false, anchored: true };
}

/** The prompt's drawn scene, with the references framed in it. */
async function scene(job: GenerationJob, inputs: RenderInputs, size: Size): Promise<Canvas> {
  const canvas = await sceneCanvas(job.prompt, job.seed, size);
  if (inputs.referenceImages.length === 0) return canvas;
  return withReferenceFrames(
    canvas,
    inputs.referenceImages,
    seededRandom(`references\u0000${job.prompt}`, job.seed ?? 0),
  );
}
