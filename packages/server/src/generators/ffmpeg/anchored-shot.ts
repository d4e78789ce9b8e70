/**
 * The shot of a video that must pass through given pictures (first frame, keyframes, last frame:
 * the anchors, render-inputs.ts): each anchor is shown whole, at rest, on its own frame, and
 * between two anchors the camera travels with the prompt's move while one picture dissolves into
 * the next. Pure functions of the frame number, like camera-shot.ts: any frame can be made alone.
 *
 * Between anchors A and B, over the segment's eased progress:
 * - A leaves its rest along the prompt's move (camera-shot.ts `planExtensionShot`, which starts at
 *   rest on the whole picture);
 * - B arrives along the same move, mirrored: it ends at rest on the whole picture, coming from the
 *   side the move travels away from, so a pan right leaves A to the right and B enters from the left
 *   still travelling right. A push-in into A carries on as B settling back from close up (the editor's
 *   "zoom through"); a pull-back, which needs room beyond a picture's edge, is B settling back alone;
 * - the dissolve runs over the middle of the segment (DISSOLVE), eased, while both move.
 * After the last anchor, when no last frame closes the video, the camera carries on from it.
 */
import { easeInOut, type CameraMotion, type CameraView } from './camera-move.ts';
import { planExtensionShot, type Shot } from './camera-shot.ts';
import type { Random } from './seeded-random.ts';

export interface AnchoredFrame {
  /** Index of the anchor shown (or dissolving out), and its view. */
  from: number;
  fromView: CameraView;
  /** The anchor dissolving in, while there is one. */
  to?: number;
  toView?: CameraView;
  /** Share of `to` in the dissolve, 0..1. */
  mix: number;
  /** Progress through the segment, 0..1 (0 on an anchor's own frame). */
  progress: number;
  /** Whether a next anchor closes this segment (else the camera carries on to the end). */
  closed: boolean;
}

export interface AnchoredShot {
  frameAt(n: number): AnchoredFrame;
  /** The tightest magnification reached: how much larger than the output each canvas must be. */
  maxZoom: number;
}

/** The share of a segment over which the dissolve runs, centred. */
const DISSOLVE = { start: 0.375, length: 0.25 };
export const REST: CameraView = Object.freeze({ cx: 0.5, cy: 0.5, zoom: 1 });

interface Segment {
  first: number;
  last: number;
  leave: Shot;
  arrive?: Shot;
}

/**
 * `anchorFrames`: the frame each anchor is shown on, increasing, the first 0. `secondsPerFrame`
 * turns frame distances into the seconds the moves are sized for.
 */
export function planAnchoredShot(
  motion: CameraMotion,
  anchorFrames: number[],
  frames: number,
  secondsPerFrame: number,
  rnd: Random,
): AnchoredShot {
  const pullBack = motion.zoom === 'out';
  // Leaving a picture can only close in: a pull-back leaves with the rest of the move and no zoom.
  const leaving: CameraMotion = pullBack ? { ...motion, zoom: undefined } : motion;
  const arriving: CameraMotion = pullBack ? { ...motion, zoom: 'in' } : motion;
  const segments: Segment[] = anchorFrames.map((first, i) => {
    const closed = i + 1 < anchorFrames.length;
    const last = closed ? anchorFrames[i + 1] : frames - 1;
    const seconds = Math.max(secondsPerFrame, (last - first) * secondsPerFrame);
    return {
      first,
      last,
      leave: planExtensionShot(leaving, seconds, rnd),
      arrive: closed ? planExtensionShot(arriving, seconds, rnd) : undefined,
    };
  });
  const maxZoom = Math.max(1, ...segments.flatMap((s) => [s.leave.maxZoom, s.arrive?.maxZoom ?? 1]));
  return {
    maxZoom,
    frameAt(n) {
      let i = segments.length - 1;
      while (i > 0 && n < segments[i].first) i--;
      const segment = segments[i];
      const span = segment.last - segment.first;
      const progress = span > 0 ? Math.min(1, (n - segment.first) / span) : 0;
      const fromView = progress === 0 ? REST : segment.leave.viewAt(progress);
      if (!segment.arrive) return { from: i, fromView, mix: 0, progress, closed: false };
      const mix = easeInOut((progress - DISSOLVE.start) / DISSOLVE.length);
      return {
        from: i,
        fromView,
        to: i + 1,
        toView: mirrored(segment.arrive.viewAt(1 - progress)),
        mix,
        progress,
        closed: true,
      };
    },
  };
}

/** The view reflected through the canvas's middle: the same move, travelling the other way. */
function mirrored(view: CameraView): CameraView {
  return { ...view, cx: 1 - view.cx, cy: 1 - view.cy };
}
