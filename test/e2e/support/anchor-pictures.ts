import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { resolveFfmpegBinaries } from '../../../packages/server/src/media/ffmpeg-binaries.ts';

const run = promisify(execFile);
const bins = resolveFfmpegBinaries({});

/** A photo-like picture in two colours, 400x300, so that framing it to 16:9 crops it. */
export async function picture(a: string, b: string): Promise<Buffer> {
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300"><defs><linearGradient id="g">` +
    `<stop offset="0" stop-color="${a}"/><stop offset="1" stop-color="${b}"/></linearGradient></defs>` +
    `<rect width="400" height="300" fill="url(#g)"/><circle cx="130" cy="150" r="70" fill="${b}"/>` +
    `<rect x="240" y="50" width="100" height="170" fill="${a}" stroke="#ffffff" stroke-width="8"/></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** The picture as the renderer frames an anchor (docs/inputs.md): cover-fitted, centred, lanczos3, packed RGB. */
export const framed = (png: Buffer, width: number, height: number) =>
  sharp(png).resize(width, height, { fit: 'cover', kernel: 'lanczos3' }).removeAlpha().raw().toBuffer();

/** Every decoded frame of an MP4, as packed RGB of `width × height`. */
export async function decodedFrames(path: string, width: number, height: number): Promise<Buffer[]> {
  const { stdout } = await run(bins.ffmpeg, ['-v', 'error', '-i', path, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], {
    encoding: 'buffer',
    maxBuffer: 512 * 1024 * 1024,
  });
  const size = width * height * 3;
  return Array.from({ length: stdout.length / size }, (_, i) => stdout.subarray(i * size, (i + 1) * size));
}
