/**
 * Makes what ComfyUI saved into the MP4 that was asked for. Video models render at their own
 * granularity (Wan: sides in multiples of 16 or 32, 4n+1 frames), and a workflow may save WebM or
 * GIF, so the file is usually re-encoded: scaled to cover the asked size, centre-cropped, trimmed
 * (or the last frame held) to the exact frame count, H.264 yuv420p. An exact MP4 of a sensible size
 * is kept as is.
 *
 * Size: ComfyUI's SaveVideo encodes with x264's defaults and no rate limit. Wan 2.2 TI2V 5B at
 * 1280×704, 5 s, wrote 31 MB (≈50 Mbit/s) on a real host: a random-weights model makes noise, and
 * noise at CRF 23 is huge. The re-encode here is the built-in renderer's (same preset and CRF) with a
 * ceiling of MAX_BITS_PER_PIXEL per pixel and frame (≈2.7 Mbit/s at 720p24), so a clip is never
 * more than the renderer's quality costs at that size; an "exact" file over that ceiling is
 * re-encoded too.
 *
 * Sound, when the task asks for it: AAC stereo at 48 kHz, exactly as long as the picture; dropped
 * otherwise. ComfyUI's SaveVideo cuts the audio to the picture but never pads it, and keeps the
 * input's sample rate (44.1 kHz from a typical LoadAudio): so a kept file's track is checked like a
 * re-encoded one, and when its length or rate is off only the sound is made again (padded with
 * silence or cut, resampled), the picture copied as it is.
 */
import { rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { FAILURES, type TaskFailure } from '../../domain/task-failure.ts';
import { probeVideo, type VideoProbe } from '../../media/video-probe.ts';
import { AAC_OUTPUT } from '../ffmpeg/encode-args.ts';
import { runFfmpeg } from '../ffmpeg/run-ffmpeg.ts';

export interface VideoTarget {
  width: number;
  height: number;
  fps: number;
  frames: number;
  /** The task asked for sound: the workflow's audio stream is kept. */
  audio?: boolean;
}

export interface NormalizeOptions {
  ffmpeg: string;
  ffprobe: string;
  preset: string;
  signal: AbortSignal;
  onProgress(fraction: number): void;
}

/** Bits per pixel per frame of the ceiling: above what x264 at CRF 23 spends on a real scene. */
export const MAX_BITS_PER_PIXEL = 0.12;
/** The sample rate of every delivered track, as the built-in renderer's (encode-args.ts). */
const SOUND_RATE = 48_000;

export const maxVideoBitrate = (t: Pick<VideoTarget, 'width' | 'height' | 'fps'>) =>
  Math.round(t.width * t.height * t.fps * MAX_BITS_PER_PIXEL);

/** Returns the path of the finished `output.mp4` beside `source`. */
export async function normalizeVideo(source: string, target: VideoTarget, opts: NormalizeOptions): Promise<string> {
  const out = join(source, '..', 'output.mp4');
  const probe = await probeVideo(opts.ffprobe, source, opts.signal).catch((err: unknown) => {
    if (opts.signal.aborted) throw FAILURES.canceled();
    throw unreadable(err);
  });
  if (target.audio && probe.audioStreams === 0)
    throw FAILURES.invalidOutput('The GPU host returned a video without sound.');
  const keep = await keepsPicture(source, probe, target);
  if (keep && soundFits(probe, target)) {
    await rename(source, out);
    return out;
  }
  try {
    await runFfmpeg(opts.ffmpeg, {
      args: keep ? resoundArgs(source, out, target) : reencodeArgs(source, out, target, opts.preset),
      signal: opts.signal,
      onFrame: (frame) => opts.onProgress(Math.min(1, frame / target.frames)),
    });
  } catch (err) {
    if (opts.signal.aborted) throw FAILURES.canceled();
    throw unreadable(err);
  }
  return out;
}

/** The picture is exactly what was asked, at a sensible rate: it need not be encoded again. */
async function keepsPicture(source: string, probe: VideoProbe, target: VideoTarget): Promise<boolean> {
  const exact =
    source.toLowerCase().endsWith('.mp4') &&
    probe.codec === 'h264' &&
    probe.pixelFormat === 'yuv420p' &&
    probe.width === target.width &&
    probe.height === target.height &&
    probe.frames === target.frames &&
    probe.fps !== undefined &&
    Math.abs(probe.fps - target.fps) < 0.01 &&
    (!target.audio || probe.audioStreams === 1);
  if (!exact) return false;
  const bytes = (await stat(source)).size;
  return (bytes * 8) / probe.durationSeconds <= maxVideoBitrate(target) * 1.25 + 256_000;
}

/**
 * The track is what a re-encode would make: none when none is asked for; else one AAC stereo
 * stream at 48 kHz as long as the picture, to within half a frame (the AAC frame of 1024 samples
 * the encoder may leave at the end is 21 ms, under half a frame up to 24 fps).
 */
function soundFits(probe: VideoProbe, target: VideoTarget): boolean {
  if (!target.audio) return probe.audioStreams === 0;
  const a = probe.audio;
  return (
    a !== undefined &&
    a.codec === 'aac' &&
    a.channels === 2 &&
    a.sampleRate === SOUND_RATE &&
    Math.abs(a.durationSeconds - target.frames / target.fps) <= 0.5 / target.fps
  );
}

/** The sound exactly as long as the picture, at 48 kHz stereo: padded with silence or cut. */
function soundArgs(target: VideoTarget): string[] {
  const samples = Math.round((target.frames / target.fps) * SOUND_RATE);
  const filter = `aresample=${SOUND_RATE},apad=whole_len=${samples},atrim=end_sample=${samples}`;
  return ['-map', '0:a:0', '-af', filter, ...AAC_OUTPUT];
}

/** A kept picture (copied, not encoded) with its sound made again, or dropped. */
function resoundArgs(source: string, out: string, target: VideoTarget): string[] {
  return [
    ...['-hide_banner', '-loglevel', 'error', '-nostats', '-progress', 'pipe:1', '-i', source],
    ...['-map', '0:v:0', '-c:v', 'copy', ...(target.audio ? soundArgs(target) : ['-an']), '-sn', '-dn'],
    ...['-map_metadata', '-1', '-movflags', '+faststart', '-f', 'mp4', '-y', out],
  ];
}

function reencodeArgs(source: string, out: string, target: VideoTarget, preset: string): string[] {
  const { width: w, height: h, fps, frames } = target;
  const filter = [
    `fps=${fps}`,
    `scale=${w}:${h}:force_original_aspect_ratio=increase:flags=bicubic`,
    `crop=${w}:${h}`,
    'setsar=1',
    // A model that rendered fewer frames than asked: hold the last one rather than end early.
    `tpad=stop_mode=clone:stop=${frames}`,
    // Cut by a filter, not -frames:v, which would also cut the sound at the picture's last packet.
    `trim=end_frame=${frames}`,
    'format=yuv420p',
  ].join(',');
  const sound = target.audio ? soundArgs(target) : ['-an'];
  const maxrate = maxVideoBitrate(target);
  return [
    ...['-hide_banner', '-loglevel', 'error', '-nostats', '-progress', 'pipe:1', '-i', source],
    ...['-map', '0:v:0', '-vf', filter, ...sound, '-sn', '-dn'],
    ...['-c:v', 'libx264', '-preset', preset, '-crf', '23'],
    ...['-maxrate', String(maxrate), '-bufsize', String(maxrate), '-pix_fmt', 'yuv420p'],
    ...['-colorspace', 'bt709', '-color_primaries', 'bt709', '-color_trc', 'bt709', '-color_range', 'tv'],
    ...['-map_metadata', '-1', '-movflags', '+faststart', '-f', 'mp4', '-y', out],
  ];
}

function unreadable(cause: unknown): TaskFailure {
  // Transient: a truncated download or a bad encode on the host is worth one more try.
  const err = FAILURES.renderFailed('The GPU host returned a video that could not be converted.');
  Object.defineProperty(err, 'cause', { value: cause, enumerable: false });
  return err;
}
