/**
 * The canvas as yuv420p planes, converted once per render so every frame only resamples.
 * BT.709 limited range: the matrix players assume for HD, and what the encoder tags the stream as.
 * Chroma is the mean of each 2x2 block (centre-sited); frames are resampled with the same siting,
 * so canvas and output agree.
 */

export interface Plane {
  /** Byte offset of the first row in the target memory. */
  offset: number;
  width: number;
  height: number;
  /** Bytes from one row to the next; at least `width` plus the kernels' 16 bytes of read slack. */
  stride: number;
}

const KR = 0.2126;
const KB = 0.0722;
const KG = 1 - KR - KB;

export const paddedStride = (width: number) => Math.ceil((width + 16) / 16) * 16;

/** Where the three planes of a width x height canvas go, starting at `offset`; and the end. */
export function planeLayout(
  width: number,
  height: number,
  offset: number,
): { planes: [Plane, Plane, Plane]; end: number } {
  const cw = width / 2;
  const ch = height / 2;
  const y: Plane = { offset, width, height, stride: paddedStride(width) };
  const u: Plane = { offset: y.offset + y.stride * (height + 1), width: cw, height: ch, stride: paddedStride(cw) };
  const v: Plane = { ...u, offset: u.offset + u.stride * (ch + 1) };
  return { planes: [y, u, v], end: v.offset + v.stride * (ch + 1) };
}

/** Writes packed RGB (even width and height) into `planes` of `memory`. */
export function rgbToYuv420(rgb: Uint8Array, width: number, planes: [Plane, Plane, Plane], memory: Uint8Array): void {
  const [py, pu, pv] = planes;
  for (let row = 0; row < py.height; row++) {
    let src = row * width * 3;
    let dst = py.offset + row * py.stride;
    for (let x = 0; x < width; x++, src += 3) {
      memory[dst++] = Math.round(16 + (219 / 255) * (KR * rgb[src] + KG * rgb[src + 1] + KB * rgb[src + 2]));
    }
  }
  const row3 = width * 3;
  for (let cy = 0; cy < pu.height; cy++) {
    for (let cx = 0; cx < pu.width; cx++) {
      const a = (2 * cy * width + 2 * cx) * 3;
      const r = (rgb[a] + rgb[a + 3] + rgb[a + row3] + rgb[a + row3 + 3]) / 4;
      const g = (rgb[a + 1] + rgb[a + 4] + rgb[a + row3 + 1] + rgb[a + row3 + 4]) / 4;
      const b = (rgb[a + 2] + rgb[a + 5] + rgb[a + row3 + 2] + rgb[a + row3 + 5]) / 4;
      const luma = KR * r + KG * g + KB * b;
      memory[pu.offset + cy * pu.stride + cx] = Math.round(128 + (224 / 255) * ((b - luma) / (2 * (1 - KB))));
      memory[pv.offset + cy * pv.stride + cx] = Math.round(128 + (224 / 255) * ((r - luma) / (2 * (1 - KR))));
    }
  }
}

/** Writes packed yuv420p (planes back to back, no padding) into `planes` of `memory`. */
export function copyYuv420(yuv: Uint8Array, planes: [Plane, Plane, Plane], memory: Uint8Array): void {
  let at = 0;
  for (const plane of planes) {
    for (let row = 0; row < plane.height; row++, at += plane.width) {
      memory.set(yuv.subarray(at, at + plane.width), plane.offset + row * plane.stride);
    }
  }
}

/**
 * A packed yuv420p frame with its own mirror image around it, `pad` pixels (even) on each side:
 * room for a camera to pull back from a frame that has nothing beyond its edges.
 */
export function mirrorPad(
  frame: Uint8Array,
  size: { width: number; height: number },
  pad: { x: number; y: number },
): { width: number; height: number; yuv420: Uint8Array } {
  const width = size.width + 2 * pad.x;
  const height = size.height + 2 * pad.y;
  const out = new Uint8Array((width * height * 3) / 2);
  let src = 0;
  let dst = 0;
  for (const [w, h, px, py] of [
    [size.width, size.height, pad.x, pad.y],
    ...Array(2).fill([size.width / 2, size.height / 2, pad.x / 2, pad.y / 2]),
  ]) {
    const ow = w + 2 * px;
    const oh = h + 2 * py;
    for (let y = 0; y < oh; y++) {
      const row = src + reflect(y - py, h) * w;
      for (let x = 0; x < ow; x++) out[dst + y * ow + x] = frame[row + reflect(x - px, w)];
    }
    src += w * h;
    dst += ow * oh;
  }
  return { width, height, yuv420: out };
}

/** Index `i` folded back into 0..n-1 as a mirror does (the edge pixel is not repeated). */
function reflect(i: number, n: number): number {
  const folded = i < 0 ? -i - 1 : i >= n ? 2 * n - i - 1 : i;
  return Math.min(n - 1, Math.max(0, folded));
}
