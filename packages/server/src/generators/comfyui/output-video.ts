/**
 * Makes what ComfyUI saved into the MP4 that was asked for. Video models render at their own
 * granularity (Wan: sides in multiples of 16 or 32, 4n+1 frames), and a workflow may save WebM or
 * GIF, so the file is usually re-encoded: scaled to cover the asked size, centre-cropped, trimmed
 * (or the last frame held) to the exact frame count, H.264 yuv420p. An exact MP4 is kept as is.
 */
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { FAILURES, type TaskFailure } from '../../domain/task-failure.ts';
import { probeVideo } from '../../media/video-probe.ts';
import { runFfmpeg } from '../ffmpeg/run-ffmpeg.ts';

export interface VideoTarget {
  width: number;
  height: number;
  fps: number;
  frames: number;
}

export interface NormalizeOptions {
  ffmpeg: string;
  ffprobe: string;
  preset: string;
  signal: AbortSignal;
  onProgress(fraction: number): void;
}

/** Returns the path of the finished `output.mp4` beside `source`. */
export async function normalizeVideo(source: string, target: VideoTarget, opts: NormalizeOptions): Promise<string> {
  const out = join(source, '..', 'output.mp4');
  const probe = await probeVideo(opts.ffprobe, source, opts.signal).catch((err: unknown) => {
    if (opts.signal.aborted) throw FAILURES.canceled();
    throw unreadable(err);
  });
  const exact =
    source.toLowerCase().endsWith('.mp4') &&
    probe.codec === 'h264' &&
    probe.pixelFormat === 'yuv420p' &&
    probe.width === target.width &&
    probe.height === target.height &&
    probe.frames === target.frames &&
    probe.fps !== undefined &&
    Math.abs(probe.fps - target.fps) < 0.01;
  if (exact) {
    await rename(source, out);
    return out;
  }
  const { width: w, height: h, fps, frames } = target;
  const filter = [
    `fps=${fps}`,
    `scale=${w}:${h}:force_original_aspect_ratio=increase:flags=bicubic`,
    `crop=${w}:${h}`,
    'setsar=1',
    // A model that rendered fewer frames than asked: hold the last one rather than end early.
    `tpad=stop_mode=clone:stop=${frames}`,
    'format=yuv420p',
  ].join(',');
  try {
    await runFfmpeg(opts.ffmpeg, {
      args: [
        '-hide_banner',
        '-loglevel',
        'error',
        '-nostats',
        '-progress',
        'pipe:1',
        '-i',
        source,
        '-map',
        '0:v:0',
        '-vf',
        filter,
        '-frames:v',
        String(frames),
        '-an',
        '-sn',
        '-dn',
        '-c:v',
        'libx264',
        '-preset',
        opts.preset,
        '-pix_fmt',
        'yuv420p',
        '-colorspace',
        'bt709',
        '-color_primaries',
        'bt709',
        '-color_trc',
        'bt709',
        '-color_range',
        'tv',
        '-map_metadata',
        '-1',
        '-movflags',
        '+faststart',
        '-f',
        'mp4',
        '-y',
        out,
      ],
      signal: opts.signal,
      onFrame: (frame) => opts.onProgress(Math.min(1, frame / frames)),
    });
  } catch (err) {
    if (opts.signal.aborted) throw FAILURES.canceled();
    throw unreadable(err);
  }
  return out;
}

function unreadable(cause: unknown): TaskFailure {
  // Transient: a truncated download or a bad encode on the host is worth one more try.
  const err = FAILURES.renderFailed('The GPU host returned a video that could not be converted.');
  Object.defineProperty(err, 'cause', { value: cause, enumerable: false });
  return err;
}
