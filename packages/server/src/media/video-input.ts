/**
 * Input videos of edits and extensions: recognise an MP4, probe it, and hold it to limits the
 * renderers can honour before any generator sees it. Bytes are trusted only after ffprobe found a
 * video stream in a container that sniffs as MP4 (invariant 5, docs/architecture.md: magic bytes, not names or
 * Content-Type headers). Messages are safe to show the caller: never a path, never ffprobe's words.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseRate, type VideoProbe } from './video-probe.ts';

export type VideoProber = (file: string, signal?: AbortSignal) => Promise<VideoProbe>;

export type VideoRejectCode =
  /** Not an MP4, or no decodable video stream in it. */
  | 'video_invalid'
  /** A real video, but longer, larger or faster than the service takes. */
  | 'video_unsupported';

/** Why an input video was refused; `message` is safe to show the caller. */
export class VideoRejected extends Error {
  constructor(
    readonly code: VideoRejectCode,
    message: string,
  ) {
    super(message);
  }
}

/** What the engine accepts as an input video, whatever the backend (each may refuse more). */
export const INPUT_VIDEO_LIMITS = { maxSeconds: 60, minSide: 16, maxSide: 4096, maxFps: 120 };

/** Codecs the bundled ffmpeg decodes; anything else would fail in the middle of a render. */
const DECODABLE = ['h264', 'hevc', 'vp9', 'av1', 'vp8', 'mpeg4', 'mpeg2video', 'mjpeg', 'prores'];

/** ISO base media (MP4, MOV, M4V): the first box is `ftyp`. */
export function isMp4(bytes: Buffer): boolean {
  return bytes.length >= 12 && bytes.toString('latin1', 4, 8) === 'ftyp';
}

export interface CheckedVideo extends VideoProbe {
  frames: number;
  frameRate: string;
}

/** Probes a local file and checks it against the limits; throws VideoRejected when it is not usable. */
export async function checkVideoFile(probe: VideoProber, file: string, signal?: AbortSignal): Promise<CheckedVideo> {
  let facts: VideoProbe;
  try {
    facts = await probe(file, signal);
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new VideoRejected('video_invalid', 'The video could not be read: it has no playable video stream.');
  }
  return checkFacts(facts);
}

/** The same check for bytes in memory (an upload): written to a private temp file for ffprobe. */
export async function checkVideoBytes(probe: VideoProber, bytes: Buffer): Promise<CheckedVideo> {
  if (!isMp4(bytes)) throw new VideoRejected('video_invalid', 'The file is not an MP4 video.');
  const dir = await mkdtemp(join(tmpdir(), 'vidgen-video-'));
  try {
    const file = join(dir, 'upload.mp4');
    await writeFile(file, bytes);
    return await checkVideoFile(probe, file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function checkFacts(facts: VideoProbe): CheckedVideo {
  const { maxSeconds, minSide, maxSide, maxFps } = INPUT_VIDEO_LIMITS;
  if (!DECODABLE.includes(facts.codec)) {
    throw new VideoRejected(
      'video_unsupported',
      `The video is encoded as ${facts.codec}; H.264, HEVC, VP9 and AV1 are accepted.`,
    );
  }
  if (facts.width < minSide || facts.height < minSide || facts.width > maxSide || facts.height > maxSide) {
    throw new VideoRejected(
      'video_unsupported',
      `The video is ${facts.width}x${facts.height}; each side must be ${minSide} to ${maxSide} pixels.`,
    );
  }
  const rate = parseRate(facts.frameRate) ?? facts.fps;
  if (rate === undefined || !(rate > 0) || rate > maxFps) {
    throw new VideoRejected(
      'video_unsupported',
      `The video's frame rate must be known and at most ${maxFps} frames per second.`,
    );
  }
  const seconds = facts.durationSeconds;
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new VideoRejected('video_invalid', 'The video has no known duration.');
  if (seconds > maxSeconds) {
    throw new VideoRejected(
      'video_unsupported',
      `The video lasts ${seconds.toFixed(1)} s; at most ${maxSeconds} s are accepted.`,
    );
  }
  const frames = facts.frames ?? Math.max(1, Math.round(seconds * rate));
  // ffmpeg turns a rotated picture upright as it decodes: the frames it hands on have these sides.
  const turned = facts.rotation === 90 || facts.rotation === 270;
  const sides = turned ? { width: facts.height, height: facts.width } : {};
  return { ...facts, ...sides, frames, frameRate: facts.frameRate ?? `${rate}` };
}
