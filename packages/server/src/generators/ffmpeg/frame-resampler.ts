/**
 * Cuts one output frame out of the canvas for a camera view, at sub-pixel precision.
 *
 * Why not an ffmpeg filter: zoompan crops at whole (in yuv420p even) pixels, so a slow zoom wobbles
 * by up to a pixel from frame to frame (measured 0.97 px on a 1.25x canvas, 0.53 px on a 2x
 * supersampled one); crop and scale take only whole-pixel sizes and, in ffmpeg 4.1, fixed ones.
 * `perspective` is exact but cost more than x264 itself (about 12 ms of CPU per 1080p frame);
 * these SIMD kernels take under 1 ms for the same frame, and the output is the same bilinear
 * sampling at 1/256 pixel.
 *
 * Geometry, per axis: output pixel u (pixel-centre convention) samples canvas coordinate
 * left + u * k, where k is canvas pixels per output pixel and left puts the view's centre in the
 * middle. Chroma samples sit at luma coordinate 2c + 0.5 in canvas and output alike.
 */
import { BLOCK_BYTES, type BilinearKernels } from './bilinear-kernels.ts';
import type { CameraView } from './camera-move.ts';
import { copyYuv420, planeLayout, rgbToYuv420, type Plane } from './yuv-canvas.ts';

export interface Size {
  width: number;
  height: number;
}

/** Mapping from output plane pixels to source plane coordinates along one axis. */
interface AxisMap {
  /** Source coordinate of output pixel 0, and the step per output pixel, in source plane pixels. */
  start: number;
  step: number;
}

export class FrameResampler {
  private readonly src: [Plane, Plane, Plane];
  private readonly out: [Plane, Plane, Plane];
  private readonly table: number;
  private readonly scratch: number;
  private readonly memory: Uint8Array;
  private readonly view: DataView;

  /**
   * `canvas` is packed RGB (`data`), or packed yuv420p (`yuv420`, e.g. a decoded video frame),
   * which is taken as it is so its frame comes out unchanged at zoom 1.
   */
  constructor(
    private readonly kernels: BilinearKernels,
    canvas: Size & ({ data: Uint8Array } | { yuv420: Uint8Array }),
    private readonly output: Size,
  ) {
    const src = planeLayout(canvas.width, canvas.height, 0);
    const out = planeLayout(output.width, output.height, src.end);
    this.src = src.planes;
    this.out = out.planes;
    this.table = out.end;
    this.scratch = this.table + Math.ceil(output.width / 8) * BLOCK_BYTES;
    kernels.reserve(this.scratch + (canvas.height + 2) * this.out[0].stride);
    this.memory = kernels.bytes();
    this.view = new DataView(this.memory.buffer);
    if ('data' in canvas) rgbToYuv420(canvas.data, canvas.width, this.src, this.memory);
    else copyYuv420(canvas.yuv420, this.src, this.memory);
  }

  /** The frame showing `view`, as packed yuv420p (what ffmpeg's rawvideo input reads), in `into` if given. */
  frame(view: CameraView, into?: Buffer): Buffer {
    const frame = into ?? Buffer.allocUnsafe((this.output.width * this.output.height * 3) / 2);
    let at = 0;
    for (let p = 0; p < 3; p++) {
      const x = this.axis(view.cx, view.zoom, this.src[0].width, this.output.width, p > 0);
      const y = this.axis(view.cy, view.zoomY ?? view.zoom, this.src[0].height, this.output.height, p > 0);
      this.resample(this.src[p], this.out[p], x, y);
      const out = this.out[p];
      for (let row = 0; row < out.height; row++, at += out.width) {
        const start = out.offset + row * out.stride;
        frame.set(this.memory.subarray(start, start + out.width), at);
      }
    }
    return frame;
  }

  private axis(centre: number, zoom: number, canvasPx: number, outPx: number, chroma: boolean): AxisMap {
    const k = canvasPx / (zoom * outPx);
    const left = centre * canvasPx - (k * outPx) / 2 + 0.5 * k - 0.5;
    if (!chroma) return { start: left, step: k };
    // Chroma pixel c is luma coordinate 2c + 0.5, in the output and in the canvas.
    return { start: (left + 0.5 * k - 0.5) / 2, step: k };
  }

  private resample(src: Plane, out: Plane, x: AxisMap, y: AxisMap): void {
    const blocks = this.writeColumnTable(src.width, out.width, x);
    // Taps only move forward along an axis (step > 0): the first and last rows bound the rest.
    // Plain loops, no arrays of taps: this runs for every plane of every frame.
    const first = tap(y.start, src.height).index;
    const last = tap(y.start + (out.height - 1) * y.step, src.height).index + 1;
    this.kernels.hpass(
      this.scratch,
      src.offset + first * src.stride,
      this.table,
      blocks,
      last - first + 1,
      src.stride,
      out.stride,
    );
    for (let v = 0; v < out.height; v++) {
      const row = tap(y.start + v * y.step, src.height);
      const a = this.scratch + (row.index - first) * out.stride;
      this.kernels.vpass(out.offset + v * out.stride, a, a + out.stride, out.stride, row.weight);
    }
  }

  /** hpass's per-block table for one plane; returns the number of blocks of 8 output pixels. */
  private writeColumnTable(srcWidth: number, outWidth: number, x: AxisMap): number {
    const blocks = Math.ceil(outWidth / 8);
    for (let b = 0; b < blocks; b++) {
      const entry = this.table + b * BLOCK_BYTES;
      const base = tap(x.start + b * 8 * x.step, srcWidth).index;
      this.memory.fill(0, entry, entry + 16);
      for (let j = 0; j < 8; j++) {
        const t = tap(x.start + (b * 8 + j) * x.step, srcWidth);
        // Both taps of all 8 pixels must come from the 16 bytes loaded at `base`.
        if (t.index - base > 14) throw new Error('camera step too large for the resampler');
        this.memory[entry + j] = t.index - base;
        this.view.setInt16(entry + 16 + 2 * j, t.weight, true);
      }
      this.view.setInt32(entry + 32, base, true);
    }
    return blocks;
  }
}

/** The two source pixels (index, index + 1) and 8-bit weight of the second for coordinate `pos`. */
function tap(pos: number, size: number): { index: number; weight: number } {
  if (pos <= 0) return { index: 0, weight: 0 };
  if (pos >= size - 1) return { index: size - 2, weight: 256 };
  const index = Math.floor(pos);
  return { index, weight: Math.round((pos - index) * 256) };
}
