/**
 * The frames of an anchored shot (anchored-shot.ts): each anchor's own frame is its picture framed
 * to the output size exactly as sharp cover-fits it (the same framing as a first frame), and every
 * frame between is cut from the anchors' canvases and mixed (frame-colour.ts): a dissolve with
 * colours matched, and the references' grade where there are references.
 */
import { createKernels } from './bilinear-kernels.ts';
import type { AnchoredFrame, AnchoredShot } from './anchored-shot.ts';
import { REST } from './anchored-shot.ts';
import { easeInOut } from './camera-move.ts';
import { dissolveMix, isIdentity } from './colour-grade.ts';
import { frameBytes } from './encode-args.ts';
import { colourStats, FrameMixer, type ColourStats } from './frame-colour.ts';
import { FrameResampler, type Size } from './frame-resampler.ts';
import type { Canvas } from './render-canvas.ts';

export interface AnchorPicture {
  /** The picture at the canvas size the moves need. */
  canvas: Canvas;
  /** The picture framed at the output size, packed yuv420p: the anchor's own frame. Absent for the scene. */
  exact?: Buffer;
}

export interface AnchoredGrade {
  to: ColourStats;
  /** The grade's strength on each anchor's own frame: 0 for the caller's pictures, which stay exact. */
  atAnchor: number[];
  /** Its strength mid-way between two anchors, and where the camera carries on past the last. */
  between: number;
}

/** Every frame of the shot, in order; two output buffers alternate (run-ffmpeg.ts writes one before asking twice). */
export function* anchoredFrames(
  pictures: AnchorPicture[],
  shot: AnchoredShot,
  frames: number,
  output: Size,
  grade?: AnchoredGrade,
): Iterable<Buffer> {
  const resamplers = pictures.map((p) => new FrameResampler(createKernels(), p.canvas, output));
  const stats = pictures.map((p, i) => colourStats(p.exact ?? resamplers[i].frame(REST), output));
  const outs = [0, 1].map(() => Buffer.allocUnsafe(frameBytes(output)));
  const cuts = [0, 1].map(() => Buffer.allocUnsafe(frameBytes(output)));
  const mixer = new FrameMixer(output);
  for (let n = 0; n < frames; n++) {
    const f = shot.frameAt(n);
    const strength = grade ? strengthAt(f, grade) : 0;
    const exact = pictures[f.from].exact;
    if (f.progress === 0 && exact && strength === 0) {
      yield exact;
      continue;
    }
    const out = outs[n % 2];
    // Past the dissolve's end B is alone: it is the one source, unchanged but for the grade.
    const [one, view] = f.to !== undefined && f.mix >= 1 ? [f.to, f.toView!] : [f.from, f.fromView];
    const two = f.to !== undefined && f.mix > 0 && f.mix < 1 ? f.to : undefined;
    const mix = dissolveMix(
      stats[one],
      two === undefined ? undefined : stats[two],
      f.mix,
      grade && { to: grade.to, strength },
    );
    if (two === undefined && isIdentity(mix)) {
      resamplers[one].frame(view, out);
    } else {
      const a = resamplers[one].frame(view, cuts[0]);
      const b = two === undefined ? undefined : resamplers[two].frame(f.toView!, cuts[1]);
      mixer.mix(out, mix, a, b);
    }
    yield out;
  }
}

/** The grade's strength on frame `f`: from anchor to anchor, rising between (or past the last). */
function strengthAt(f: AnchoredFrame, grade: AnchoredGrade): number {
  const from = grade.atAnchor[f.from];
  if (!f.closed) return from + (Math.max(from, grade.between) - from) * easeInOut(f.progress);
  const along = from + (grade.atAnchor[f.to!] - from) * f.mix;
  return Math.min(1, Math.max(along, grade.between * Math.sin(Math.PI * f.progress)));
}
