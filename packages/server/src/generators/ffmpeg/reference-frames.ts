/**
 * Reference images shown in the drawn scene as framed pictures: each one whole (fitted, never
 * cropped), in a pale mount with a soft shadow, tilted a few degrees, laid out in one or two rows
 * across the middle of the canvas, where every camera move keeps them in view. Placement and
 * tilt come from their own seeded stream (`references\0prompt`), so adding references changes
 * neither the scene, the camera nor the particles of a prompt and seed.
 */
import type { OverlayOptions } from 'sharp';
import { FAILURES, TaskFailure } from '../../domain/task-failure.ts';
import { loadSharp } from '../../media/load-sharp.ts';
import type { Canvas } from './render-canvas.ts';
import type { Random } from './seeded-random.ts';

const PER_ROW = 4;
// The band they are laid in, as shares of the canvas: inside the tightest view of any move.
const BAND = { left: 0.22, width: 0.56, top: 0.36, height: 0.34 };
const MOUNT = { r: 244, g: 239, b: 230 };
const MAX_TILT_DEGREES = 4;

/** `canvas` with the references framed on it (a new buffer; the canvas is left as it was). */
export async function withReferenceFrames(canvas: Canvas, paths: string[], rnd: Random): Promise<Canvas> {
  const sharp = await loadSharp();
  const rows = Math.ceil(paths.length / PER_ROW);
  const perRow = Math.ceil(paths.length / rows);
  const cellW = (BAND.width * canvas.width) / perRow;
  const cellH = (BAND.height * canvas.height) / rows;
  const overlays: OverlayOptions[] = [];
  for (const [i, path] of paths.entries()) {
    const box = { width: Math.round(cellW * 0.8), height: Math.round(cellH * 0.8) };
    const border = Math.max(2, Math.round(Math.min(box.width, box.height) * 0.05));
    const framed = await mounted(sharp, path, box, border, rnd.range(-MAX_TILT_DEGREES, MAX_TILT_DEGREES));
    const col = i % perRow;
    const row = Math.floor(i / perRow);
    const cx = (BAND.left * canvas.width + (col + 0.5) * cellW) | 0;
    const cy = (BAND.top * canvas.height + (row + 0.5) * cellH + rnd.range(-0.05, 0.05) * cellH) | 0;
    const shadow = Math.max(2, border);
    // The shadow too must lie on the canvas: sharp refuses an overlay past its edge.
    const left = Math.max(0, Math.min(canvas.width - framed.width - shadow, cx - (framed.width >> 1)));
    const top = Math.max(0, Math.min(canvas.height - framed.height - shadow, cy - (framed.height >> 1)));
    overlays.push({ input: await shadowOf(sharp, framed), left: left + shadow, top: top + shadow, blend: 'multiply' });
    overlays.push({ input: framed.data, raw: framed.info, left, top });
  }
  const data = await sharp(canvas.data, { raw: { width: canvas.width, height: canvas.height, channels: 3 } })
    .composite(overlays)
    .removeAlpha()
    .raw()
    .toBuffer();
  return { width: canvas.width, height: canvas.height, data };
}

type Sharp = Awaited<ReturnType<typeof loadSharp>>;
interface Framed {
  data: Buffer;
  info: { width: number; height: number; channels: 4 };
  width: number;
  height: number;
}

/** One reference fitted in `box`, mounted and tilted, as raw RGBA (transparent outside the mount). */
async function mounted(
  sharp: Sharp,
  path: string,
  box: { width: number; height: number },
  border: number,
  tilt: number,
) {
  try {
    const { data, info } = await sharp(path)
      .rotate()
      .flatten({ background: '#000000' })
      .resize(box.width - 2 * border, box.height - 2 * border, { fit: 'inside', kernel: 'lanczos3' })
      .toColourspace('srgb')
      .extend({ top: border, bottom: border, left: border, right: border, background: MOUNT })
      .ensureAlpha()
      .rotate(tilt, { background: { r: 0, g: 0, b: 0, alpha: 0 } })
      .raw()
      .toBuffer({ resolveWithObject: true });
    const info4 = { width: info.width, height: info.height, channels: 4 as const };
    return { data, info: info4, width: info.width, height: info.height } satisfies Framed;
  } catch (err) {
    if (err instanceof TaskFailure) throw err;
    throw FAILURES.invalidInput('A reference image could not be read.');
  }
}

/** A soft dark copy of the mount's outline, multiplied under it. */
async function shadowOf(sharp: Sharp, framed: Framed): Promise<Buffer> {
  const shade = Buffer.alloc(framed.data.length);
  for (let i = 0; i < shade.length; i += 4) {
    shade[i] = shade[i + 1] = shade[i + 2] = 0;
    shade[i + 3] = (framed.data[i + 3] * 0.45) | 0;
  }
  const blurred = await sharp(shade, { raw: framed.info })
    .blur(Math.max(0.5, framed.width / 80))
    .png()
    .toBuffer();
  return blurred;
}
