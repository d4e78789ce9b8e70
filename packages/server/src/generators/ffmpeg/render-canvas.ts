/**
 * The still a clip is cut from, as packed RGB: the input image cover-fitted, or the prompt's SVG
 * scene. It is larger than the output so the camera can move without ever showing an edge or
 * enlarging past the source's detail.
 */
import type sharp from 'sharp';
import { loadSharp } from '../../media/load-sharp.ts';
import { FAILURES, TaskFailure } from '../../domain/task-failure.ts';
import { buildSceneSvg } from './scene-svg.ts';
import type { Size } from './frame-resampler.ts';

export interface Canvas extends Size {
  /** Packed RGB, 3 bytes per pixel, rows top to bottom. */
  data: Buffer;
}

/**
 * The canvas for a move whose tightest view magnifies `oversize` times: at that view one canvas pixel
 * is one output pixel, so no frame is ever enlarged, and nothing is drawn or decoded at a detail the
 * move never shows. Even dimensions: the canvas becomes yuv420p, whose chroma halves each side.
 */
export function canvasSize(output: Size, oversize: number): Size {
  const even = (v: number) => 2 * Math.ceil((v * oversize) / 2);
  return { width: even(output.width), height: even(output.height) };
}

/** The first input image, scaled and centre-cropped to fill `size` exactly. */
export async function imageCanvas(file: string, size: Size): Promise<Canvas> {
  const sharp = await loadSharp();
  try {
    const { data, info } = await sharp(file)
      .rotate()
      .flatten({ background: '#000000' })
      .resize(size.width, size.height, { fit: 'cover', position: 'centre', kernel: 'lanczos3' })
      .toColourspace('srgb')
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    return checked(data, info, size);
  } catch (err) {
    if (err instanceof TaskFailure) throw err;
    throw FAILURES.invalidInput('The input image could not be read.');
  }
}

/**
 * One input image at several sizes, each as `imageCanvas` frames it, decoded once: an anchor's
 * canvas and its exact frame (anchored-frames.ts).
 */
export async function imageCanvases(file: string, sizes: Size[]): Promise<Canvas[]> {
  const sharp = await loadSharp();
  try {
    const { data, info } = await sharp(file)
      .rotate()
      .flatten({ background: '#000000' })
      .toColourspace('srgb')
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const raw = { width: info.width, height: info.height, channels: 3 as const };
    const out: Canvas[] = [];
    for (const size of sizes) {
      const resized = await sharp(data, { raw })
        .resize(size.width, size.height, { fit: 'cover', position: 'centre', kernel: 'lanczos3' })
        .raw()
        .toBuffer({ resolveWithObject: true });
      out.push(checked(resized.data, resized.info, size));
    }
    return out;
  } catch (err) {
    if (err instanceof TaskFailure) throw err;
    throw FAILURES.invalidInput('An input image could not be read.');
  }
}

/** The prompt's procedural scene, drawn at `size`. */
export async function sceneCanvas(prompt: string, seed: number | undefined, size: Size): Promise<Canvas> {
  const svg = buildSceneSvg({ prompt, seed, ...size });
  const sharp = await loadSharp();
  const { data, info } = await sharp(Buffer.from(svg))
    .toColourspace('srgb')
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return checked(data, info, size);
}

function checked(data: Buffer, info: sharp.OutputInfo, size: Size): Canvas {
  if (info.width !== size.width || info.height !== size.height || info.channels !== 3) {
    throw FAILURES.renderFailed('The renderer failed to prepare the picture.');
  }
  return { data, width: info.width, height: info.height };
}
