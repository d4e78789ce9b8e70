/**
 * The ffmpeg filter graph that turns one still canvas into a moving shot.
 *
 * Why `perspective` and not `zoompan`: zoompan crops at whole (and, in yuv420p, even) pixels, so a
 * slow zoom wobbles by up to a pixel from frame to frame (measured: 0.97 px frame-to-frame error on a
 * 1.25x canvas, 0.53 px even on a 2x supersampled one). perspective samples at 1/256 px, so the move is
 * smooth, and it costs less than zoompan on a supersampled canvas. `crop`/`scale` cannot help: in this
 * ffmpeg (4.1) crop sizes and scale sizes are fixed per stream and whole pixels.
 *
 * The canvas is converted to yuv420p once and looped, so per frame ffmpeg only resamples and encodes.
 */
import { type CameraPath, type CameraView } from './camera-move.ts';

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

export function isStatic(path: CameraPath): boolean {
  const { from, to } = path;
  return from.cx === to.cx && from.cy === to.cy && from.zoom === to.zoom;
}

/** The whole -vf graph, from the raw RGB canvas (one frame) to `frames` output frames. */
export function buildMotionFilter(input: MotionFilterInput): string {
  const { frames, canvas, output } = input;
  const loop = `loop=loop=${Math.max(0, frames - 1)}:size=1:start=0,setpts=N/FRAME_RATE/TB`;
  if (isStatic(input.path) && input.path.from.zoom === 1 && input.path.from.cx === 0.5 && input.path.from.cy === 0.5) {
    // Nothing moves: scale once, then every frame is the same picture.
    return `scale=${output.width}:${output.height}:flags=lanczos,${TO_YUV},${loop},setsar=1`;
  }
  return [TO_YUV, loop, perspective(input), `crop=${output.width}:${output.height}:0:0`, 'setsar=1'].join(',');
}

/**
 * perspective (sense=source) maps the four given source points to the corners of its own frame, which
 * is canvas-sized; only the top-left output-sized part is kept. So the corner at canvas width W must
 * sample `left + W * (canvas px per output px)`.
 */
function perspective({ path, frames, canvas, output }: MotionFilterInput): string {
  // `in` counts from 1; the last frame sits exactly on the path's end.
  const p = `((1-cos(PI*(in-1)/${Math.max(1, frames - 1)}))/2)`;
  const axis = (from: CameraView, to: CameraView, key: 'cx' | 'cy', canvasPx: number, outPx: number) => {
    // Canvas pixels per output pixel at zoom z: canvasPx / (z * outPx); zoom is geometric in p.
    const k0 = canvasPx / (from.zoom * outPx);
    const lnRatio = Math.log(from.zoom / to.zoom);
    const k = lnRatio === 0 ? num(k0) : `(${num(k0)}*exp(${num(lnRatio)}*${p}))`;
    const centre = `(${num(from[key] * canvasPx)}+${num((to[key] - from[key]) * canvasPx)}*${p})`;
    // Pixel centres line up with the ideal view: sample u maps to left + (u + 0.5) * k - 0.5.
    const start = `(${centre}-${k}*${num(outPx / 2)}+${k}*0.5-0.5)`;
    return { start, end: `(${start}+${k}*${canvasPx})` };
  };
  const x = axis(path.from, path.to, 'cx', canvas.width, output.width);
  const y = axis(path.from, path.to, 'cy', canvas.height, output.height);
  const corners = [
    `x0='${x.start}'`, `y0='${y.start}'`,
    `x1='${x.end}'`, `y1='${y.start}'`,
    `x2='${x.start}'`, `y2='${y.end}'`,
    `x3='${x.end}'`, `y3='${y.end}'`,
  ];
  return `perspective=${corners.join(':')}:interpolation=linear:sense=source:eval=frame`;
}

/** Plain decimal: ffmpeg's expression parser reads no exponent notation like 1e-7. */
function num(value: number): string {
  return value.toFixed(6).replace(/\.?0+$/, '') || '0';
}
