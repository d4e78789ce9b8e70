/**
 * The frames of a free shot: one canvas, the camera moving over it as the prompt asks (camera-shot.ts),
 * the scene's particles drawn through the same view, and the references' grade where there is one.
 */
import type { CameraView } from './camera-move.ts';
import type { Shot } from './camera-shot.ts';
import { dissolveMix, type Grade } from './colour-grade.ts';
import { frameBytes } from './encode-args.ts';
import { FrameMixer, type ColourStats } from './frame-colour.ts';
import type { FrameResampler, Size } from './frame-resampler.ts';
import type { ParticleField } from './scene-particles.ts';

/** The references' grade over a free shot: the canvas's colours, theirs, and the strength at time fraction t. */
export interface ShotTone {
  canvas: ColourStats;
  to: ColourStats;
  strengthAt(t: number): number;
}

/**
 * The shot's frames in order, made one at a time as ffmpeg asks for them, in three buffers that
 * cycle instead of one new buffer per frame (a fresh 1.4 MB per 720p frame cost page faults and
 * garbage collection): run-ffmpeg.ts has written a frame before it asks for the one after next, so
 * a buffer is free unless it is the frame last handed over or the held cut. Particles are drawn
 * straight into the frame handed over; a cut is copied first only when a later frame shows the
 * same view (a still camera, the eased ends of a move) and so still needs it clean. A moving shot
 * with particles used to copy every frame (about 0.4 ms of CPU per 720p frame). A grade, like the
 * particles, goes into the frame handed over, never into a held cut.
 */
export function* shotFrames(
  resampler: FrameResampler,
  output: Size,
  shot: Shot,
  frames: number,
  seconds: number,
  particles?: ParticleField,
  tone?: ShotTone,
): Iterable<Buffer> {
  const at = (n: number) => (frames > 1 ? n / (frames - 1) : 0);
  const keyOf = (view: CameraView) => `${view.cx} ${view.cy} ${view.zoom}`;
  const buffers = Array.from({ length: 3 }, () => Buffer.allocUnsafe(frameBytes(output)));
  let view = shot.viewAt(at(0));
  // The cut of `view` while the frames after it repeat that view: cut once, reused.
  let held: Buffer | undefined;
  // The frame last handed over, which the pipe may still be writing.
  let sent: Buffer | undefined;
  const spare = () => buffers.find((b) => b !== sent && b !== held) as Buffer;
  const mixer = tone ? new FrameMixer(output) : undefined;
  for (let n = 0; n < frames; n++) {
    const next = n + 1 < frames ? shot.viewAt(at(n + 1)) : undefined;
    const repeats = next !== undefined && keyOf(next) === keyOf(view);
    const cut = held ?? resampler.frame(view, spare());
    held = repeats ? cut : undefined;
    let frame = cut;
    const strength = tone ? tone.strengthAt(at(n)) : 0;
    if (tone && strength > 0) {
      // Graded into another buffer while the cut is held clean for the frames that repeat it.
      frame = repeats ? spare() : cut;
      const grade: Grade = { to: tone.to, strength };
      mixer!.mix(frame, dissolveMix(tone.canvas, undefined, 0, grade), cut);
    }
    if (particles) {
      if (repeats && frame === cut) {
        frame = spare();
        frame.set(cut);
      }
      particles.draw(frame, view, at(n) * seconds);
    }
    sent = frame;
    yield frame;
    if (next) view = next;
  }
}
