/**
 * Colour on packed yuv420p frames, plane by plane: the statistics of a picture (mean and spread of
 * Y', Cb and Cr) and one affine mix of up to two frames per plane, `a * A + b * B + c`. That one
 * mix is the dissolve between two anchors with their colours matched, and the grade that gives a
 * frame the references' palette (colour-grade.ts): a transfer of mean and spread per channel, as
 * Reinhard et al. transfer colour between photographs, done in the encoder's own Y'CbCr so a frame
 * costs one pass and no conversion.
 */
import { MixKernel } from './mix-kernel.ts';
import { rgbToYuv420, type Plane } from './yuv-canvas.ts';
import type { Size } from './frame-resampler.ts';

export type Triple = [number, number, number];

export interface ColourStats {
  mean: Triple;
  /** Standard deviation per plane, at least 1 (a flat plane still has a scale). */
  spread: Triple;
}

/** Per plane of a packed yuv420p frame: factor of A, factor of B, constant. */
export interface PlaneMix {
  a: Triple;
  b: Triple;
  c: Triple;
}

/** The three planes of a packed yuv420p frame: [offset, length]. */
export function packedPlanes(size: Size): Array<[number, number]> {
  const luma = size.width * size.height;
  const chroma = luma / 4;
  return [
    [0, luma],
    [luma, chroma],
    [luma + chroma, chroma],
  ];
}

/** Mean and spread of each plane, over every `step`-th sample (a frame has far more than enough). */
export function colourStats(frame: Uint8Array, size: Size, step = 7): ColourStats {
  const mean: Triple = [0, 0, 0];
  const spread: Triple = [1, 1, 1];
  packedPlanes(size).forEach(([offset, length], p) => {
    let sum = 0;
    let squares = 0;
    let n = 0;
    for (let i = offset; i < offset + length; i += step, n++) {
      sum += frame[i];
      squares += frame[i] * frame[i];
    }
    mean[p] = sum / n;
    spread[p] = Math.max(1, Math.sqrt(Math.max(0, squares / n - mean[p] * mean[p])));
  });
  return { mean, spread };
}

/**
 * `out = a * A + b * B + c` per plane of packed yuv420p frames of one size, rounded and clamped to
 * bytes, in fixed point with 8 fractional bits (mix-kernel.ts). One mixer per render.
 */
export class FrameMixer {
  private readonly kernel: MixKernel;
  private readonly bytes: number;

  constructor(private readonly size: Size) {
    this.bytes = (size.width * size.height * 3) / 2;
    this.kernel = new MixKernel(this.bytes);
  }

  /** Mixes `from` (and `to`, when given) into `out`. */
  mix(out: Uint8Array, mix: PlaneMix, from: Uint8Array, to?: Uint8Array): void {
    this.kernel.load(from, to);
    for (const [p, [offset, length]] of packedPlanes(this.size).entries()) {
      const fb = to ? Math.round(mix.b[p] * 256) : 0;
      // + 128: the shift then rounds to nearest; a negative sum clamps to 0, a large one to 255.
      const c = Math.round(mix.c[p] * 256) + 128;
      this.kernel.mixPlane(offset, length, Math.round(mix.a[p] * 256), fb, c, to !== undefined);
    }
    this.kernel.store(out, this.bytes);
  }
}

/** Packed RGB (even sides) as packed yuv420p, in the renderer's BT.709 limited range. */
export function packedYuv420(rgb: Uint8Array, size: Size): Buffer {
  const out = Buffer.alloc((size.width * size.height * 3) / 2);
  const planes = packedPlanes(size).map(
    ([offset], p): Plane => ({
      offset,
      width: p ? size.width / 2 : size.width,
      height: p ? size.height / 2 : size.height,
      stride: p ? size.width / 2 : size.width,
    }),
  ) as [Plane, Plane, Plane];
  rgbToYuv420(rgb, size.width, planes, out);
  return out;
}
