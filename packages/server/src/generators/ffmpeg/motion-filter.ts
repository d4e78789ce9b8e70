/**
 * The ffmpeg filter graph that turns one still canvas into a moving shot.
 *
 * Why `perspective` and not `zoompan`: zoompan crops at whole (and, in yuv420p, even) pixels, so a
 * slow zoom wobbles by up to a pixel from frame to frame (measured: 0.97 px frame-to-frame error on a
 * 1.25x canvas, 0.53 px even on a 2x supersampled one). perspective samples at 1/256 px, so the move is
 * smooth, and it costs less than zoompan on a supersampled canvas. `crop`/`scale` cannot help: in this
 * ffmpeg (4.1) crop sizes and scale sizes are fixed per stream and whole pixels.
 *
 * perspective's cost grows with its frame area (its output is as big as its input), and it is the
 * largest cost after x264. So the canvas is converted to yuv420p once and looped, and where the view
 * is smaller than the canvas (pans, tilts) a whole-pixel crop that follows the view comes first:
 * perspective then only works on the view plus a small margin and does the sub-pixel part.
 */
import type { CameraPath } from './camera-move.ts';

export interface Size {
  width: number;
  height: number;
}

export interface MotionFilterInput {
  path: CameraPath;
  frames: number;
  canvas: Size;
  output: Size;
}

// RGB -> BT.709 limited range, the matrix players assume for HD; the encoder tags the stream to match.
const TO_YUV = 'scale=out_color_matrix=bt709:out_range=tv,format=yuv420p';
// Whole pixels of margin around the view in the pre-crop: covers rounding down to even and the
// bilinear neighbour.
const CROP_MARGIN = 4;

export function isStill(path: CameraPath): boolean {
  const { from, to } = path;
  return from.cx === to.cx && from.cy === to.cy && from.zoom === to.zoom && from.zoom === 1;
}

/** The whole -vf graph, from the raw RGB canvas (one frame) to `frames` output frames. */
export function buildMotionFilter(input: MotionFilterInput): string {
  const { frames, canvas, output } = input;
  const loop = `loop=loop=${Math.max(0, frames - 1)}:size=1:start=0,setpts=N/FRAME_RATE/TB`;
  if (isStill(input.path)) {
    // Nothing moves: scale once (if at all), then every frame is the same picture.
    const same = canvas.width === output.width && canvas.height === output.height;
    return [same ? '' : `scale=${output.width}:${output.height}:flags=lanczos`, TO_YUV, loop, 'setsar=1'].filter(Boolean).join(',');
  }
  const x = axis(input, 'cx', canvas.width, output.width);
  const y = axis(input, 'cy', canvas.height, output.height);
  const steps: string[] = [TO_YUV, loop];
  if (x.crop < canvas.width || y.crop < canvas.height) {
    steps.push(`crop=w=${x.crop}:h=${y.crop}:x='${x.cropAt('n')}':y='${y.cropAt('n')}':exact=1`);
  }
  steps.push(perspective(x, y), `crop=${output.width}:${output.height}:0:0`, 'setsar=1');
  return steps.join(',');
}

interface Axis {
  /** Pre-crop size along this axis (the canvas size when there is no pre-crop). */
  crop: number;
  /** Pre-crop offset for frame index expression `i`, in whole, even canvas pixels. */
  cropAt(i: string): string;
  /** Source position (relative to the pre-crop) that output pixel `at` samples, for frame `i`. */
  sampleAt(i: string, at: number): string;
}

function axis({ path, frames, canvas }: MotionFilterInput, key: 'cx' | 'cy', canvasPx: number, outPx: number): Axis {
  const { from, to } = path;
  // Eased time for frame index i (0-based); the last frame sits exactly on the path's end.
  const p = (i: string) => `((1-cos(PI*${i}/${Math.max(1, frames - 1)}))/2)`;
  // Canvas pixels per output pixel; zoom is geometric in p (see camera-move viewAt).
  const k0 = canvasPx / (from.zoom * outPx);
  const lnRatio = Math.log(from.zoom / to.zoom);
  const k = (i: string) => (lnRatio === 0 ? num(k0) : `(${num(k0)}*exp(${num(lnRatio)}*${p(i)}))`);
  const centre = (i: string) => `(${num(from[key] * canvasPx)}+${num((to[key] - from[key]) * canvasPx)}*${p(i)})`;
  // Pixel centres line up with the ideal view: output pixel u samples left + (u + 0.5) * k - 0.5.
  const left = (i: string) => `(${centre(i)}-${k(i)}*${num(outPx / 2)}+${k(i)}*0.5-0.5)`;
  const widest = canvasPx / Math.min(from.zoom, to.zoom);
  const even = (v: number) => 2 * Math.ceil(v / 2);
  const crop = Math.min(canvasPx, even(Math.ceil(widest) + CROP_MARGIN));
  const cropAt = crop < canvasPx
    ? (i: string) => `max(0,min(${canvasPx - crop},2*floor((${left(i)}-1)/2)))`
    : () => '0';
  return {
    crop,
    cropAt,
    sampleAt: (i, at) => `(${left(i)}-${cropAt(i)}+${k(i)}*${at})`,
  };
}

/**
 * perspective (sense=source) maps four source points to the corners of its own frame, which is
 * pre-crop sized; only the top-left output-sized part is kept. So the corner at frame width W
 * samples `left + W * (canvas px per output px)`. Its `in` counts frames from 1.
 */
function perspective(x: Axis, y: Axis): string {
  const i = '(in-1)';
  const [x0, x1] = [x.sampleAt(i, 0), x.sampleAt(i, x.crop)];
  const [y0, y1] = [y.sampleAt(i, 0), y.sampleAt(i, y.crop)];
  const corners = [`x0='${x0}'`, `y0='${y0}'`, `x1='${x1}'`, `y1='${y0}'`, `x2='${x0}'`, `y2='${y1}'`, `x3='${x1}'`, `y3='${y1}'`];
  return `perspective=${corners.join(':')}:interpolation=linear:sense=source:eval=frame`;
}

/** Plain decimal: ffmpeg's expression parser reads no exponent notation like 1e-7. */
function num(value: number): string {
  return value.toFixed(6).replace(/\.?0+$/, '') || '0';
}
