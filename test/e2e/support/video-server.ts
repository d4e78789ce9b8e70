import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { resolveFfmpegBinaries } from '../../../packages/server/src/media/ffmpeg-binaries.ts';

const run = promisify(execFile);
const { ffmpeg } = resolveFfmpegBinaries({});

export const CLIP = { width: 320, height: 180, seconds: 2, fps: 24 };

/**
 * A short, colourful, moving test clip (ffmpeg's testsrc2: colour bars, a moving gradient and a
 * frame counter), so colour, blur, timing and crop edits all show in its frames.
 */
export async function makeClip(size = CLIP, pattern = 'testsrc2', pixelFormat = 'yuv420p'): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'vidgen-clip-'));
  try {
    const file = join(dir, 'clip.mp4');
    await run(ffmpeg, [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      `${pattern}=size=${size.width}x${size.height}:rate=${size.fps}`,
      '-t',
      String(size.seconds),
      '-c:v',
      'libx264',
      '-preset',
      'veryfast',
      '-pix_fmt',
      pixelFormat,
      '-movflags',
      '+faststart',
      '-y',
      file,
    ]);
    return await readFile(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Serves videos on loopback: `/clip.mp4`, `/odd.mp4` (321x181), `/text.mp4` (not a video); anything else is 404. */
export async function startVideoServer(): Promise<{ url: string; clip: Buffer; close(): Promise<void> }> {
  const clip = await makeClip();
  // Odd sides need 4:4:4; the service crops them to even for its yuv420p outputs.
  const odd = await makeClip({ ...CLIP, width: 321, height: 181 }, 'testsrc', 'yuv444p');
  const bodies: Record<string, [Buffer, string]> = {
    '/clip.mp4': [clip, 'video/mp4'],
    '/odd.mp4': [odd, 'video/mp4'],
    '/text.mp4': [Buffer.from('this is not a video, whatever its name says'), 'video/mp4'],
  };
  const server: Server = createServer((req, res) => {
    const found = bodies[req.url ?? ''];
    if (!found) return res.writeHead(404).end('not found');
    res.writeHead(200, { 'content-type': found[1], 'content-length': found[0].length });
    res.end(found[0]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    clip,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Every frame of a video as packed RGB, decoded by ffmpeg. */
export async function decodeRgb(video: Buffer | string, width: number, height: number): Promise<Buffer[]> {
  let dir: string | undefined;
  let file = typeof video === 'string' ? video : '';
  if (typeof video !== 'string') {
    dir = await mkdtemp(join(tmpdir(), 'vidgen-decode-'));
    file = join(dir, 'video.mp4');
    await writeFile(file, video);
  }
  try {
    const { stdout } = await run(ffmpeg, ['-v', 'error', '-i', file, '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'], {
      encoding: 'buffer',
      maxBuffer: 1 << 30,
    });
    const size = width * height * 3;
    return Array.from({ length: Math.floor(stdout.length / size) }, (_, i) =>
      stdout.subarray(i * size, (i + 1) * size),
    );
  } finally {
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}

/** Mean absolute difference of two equally sized frames, 0..255. */
export function frameDistance(a: Buffer, b: Buffer): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i] - b[i]);
  return sum / a.length;
}
