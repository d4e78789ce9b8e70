/**
 * What a video file really is, read by ffprobe. "Done means a verified MP4" (invariant 3, docs/architecture.md):
 * every output is checked here before a task may succeed, whatever backend made it.
 * Messages never carry file paths or ffprobe's own output: they reach the caller.
 */
import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { measureLoudness, SILENCE_LUFS } from './audio-loudness.ts';

export interface VideoProbe {
  codec: string;
  width: number;
  height: number;
  durationSeconds: number;
  pixelFormat: string;
  /** Frame count when the container states it (MP4 does). */
  frames?: number;
  /** Average frames per second when known. */
  fps?: number;
  /** The stream's rate exactly as stated ("24/1", "30000/1001"), when known. */
  frameRate?: string;
  /** Degrees a player turns the picture (phone videos); decoders turn it too, so 90 or 270 swap the sides. */
  rotation?: number;
  /** How many audio streams the file has; the first one's facts in `audio`. */
  audioStreams: number;
  audio?: AudioFacts;
}

export interface AudioFacts {
  codec: string;
  channels: number;
  sampleRate: number;
  /** NaN when neither the stream nor the container states it. */
  durationSeconds: number;
}

/** The file is not the video that was asked for (or no readable video at all); `message` is safe to show the caller. */
export class OutputRejected extends Error {}

export interface VideoExpectation {
  width: number;
  height: number;
  durationSeconds: number;
  codec?: 'h264';
  /** Frame rate the duration tolerance is measured in; defaults to the probed rate. */
  fps?: number;
  /**
   * The sound rule: true, one audio stream as long as the picture (within one frame) that is not
   * silent; false, no audio stream at all; absent, not checked (tasks from before sound existed).
   */
  audio?: boolean;
}

interface FfprobeStream {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  pix_fmt?: string;
  channels?: number;
  sample_rate?: string;
  duration?: string;
  nb_frames?: string;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  tags?: { rotate?: string };
  side_data_list?: Array<{ rotation?: number }>;
}

const PROBE_TIMEOUT_MS = 30_000;
const PROBE_MAX_BUFFER = 4 * 1024 * 1024;

export async function probeVideo(ffprobePath: string, file: string, signal?: AbortSignal): Promise<VideoProbe> {
  const args = ['-v', 'error', '-show_streams', '-show_format', '-of', 'json', file];
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(
      ffprobePath,
      args,
      { signal, timeout: PROBE_TIMEOUT_MS, maxBuffer: PROBE_MAX_BUFFER, windowsHide: true },
      (err, out) => (err ? reject(err) : resolve(out)),
    );
  }).catch((err: unknown) => {
    // The caller stopped it (execFile's AbortError): not a verdict on the file.
    if (signal?.aborted) throw err;
    throw invalid('The output is not a readable video.', err);
  });
  return parseProbe(stdout);
}

function parseProbe(json: string): VideoProbe {
  let parsed: { streams?: FfprobeStream[]; format?: { duration?: string } };
  try {
    parsed = JSON.parse(json);
  } catch (err) {
    throw invalid('The output is not a readable video.', err);
  }
  const stream = parsed.streams?.find((s) => s.codec_type === 'video');
  if (!stream || !stream.codec_name || !stream.width || !stream.height) {
    throw invalid('The output contains no video stream.');
  }
  const duration = Number(stream.duration ?? parsed.format?.duration);
  const frames = Number(stream.nb_frames);
  const fps = parseRate(stream.avg_frame_rate);
  // The nominal rate is what a re-encode must keep; the average is the fallback for odd streams.
  const frameRate = [stream.r_frame_rate, stream.avg_frame_rate].find((r) => parseRate(r) !== undefined);
  const sounds = parsed.streams?.filter((s) => s.codec_type === 'audio') ?? [];
  return {
    codec: stream.codec_name,
    width: stream.width,
    height: stream.height,
    durationSeconds: Number.isFinite(duration) ? duration : NaN,
    pixelFormat: stream.pix_fmt ?? 'unknown',
    ...(Number.isInteger(frames) && frames > 0 ? { frames } : {}),
    ...(fps !== undefined ? { fps } : {}),
    ...(frameRate !== undefined ? { frameRate } : {}),
    ...rotationOf(stream),
    audioStreams: sounds.length,
    ...(sounds[0] ? { audio: audioFacts(sounds[0], parsed.format?.duration) } : {}),
  };
}

function audioFacts(stream: FfprobeStream, containerDuration: string | undefined): AudioFacts {
  const duration = Number(stream.duration ?? containerDuration);
  return {
    codec: stream.codec_name ?? 'unknown',
    channels: stream.channels ?? 0,
    sampleRate: Number(stream.sample_rate ?? 0),
    durationSeconds: Number.isFinite(duration) ? duration : NaN,
  };
}

function rotationOf(stream: FfprobeStream): { rotation?: number } {
  const raw = Number(
    stream.tags?.rotate ?? stream.side_data_list?.find((d) => d.rotation !== undefined)?.rotation ?? 0,
  );
  const rotation = ((Math.round(raw) % 360) + 360) % 360;
  return Number.isFinite(rotation) && rotation !== 0 ? { rotation } : {};
}

/** ffprobe states rates as fractions ("30000/1001"); "0/0" means unknown. */
export function parseRate(rate: string | undefined): number | undefined {
  const [num, den = 1] = (rate ?? '').split('/').map(Number);
  return num > 0 && den > 0 ? num / den : undefined;
}

/**
 * Throws OutputRejected unless `file` is a non-empty H.264 yuv420p video of exactly the expected
 * size whose duration is within one frame (+50 ms of container rounding) of the expected one.
 */
export async function verifyVideo(
  ffprobePath: string,
  file: string,
  expect: VideoExpectation,
  /** Measures the loudness of a sound the rule asks for; without it a file that should sound is refused. */
  ffmpegPath?: string,
): Promise<VideoProbe> {
  const size = await stat(file).then(
    (s) => s.size,
    () => 0,
  );
  if (size === 0) throw invalid('The output video is empty.');
  const probe = await probeVideo(ffprobePath, file);
  const codec = expect.codec ?? 'h264';
  if (probe.codec !== codec) throw invalid(`The output video is ${probe.codec}, expected ${codec}.`);
  if (probe.width !== expect.width || probe.height !== expect.height) {
    throw invalid(`The output video is ${probe.width}x${probe.height}, expected ${expect.width}x${expect.height}.`);
  }
  if (probe.pixelFormat !== 'yuv420p') {
    throw invalid(`The output video uses pixel format ${probe.pixelFormat}, expected yuv420p.`);
  }
  const fps = expect.fps ?? probe.fps ?? 24;
  const tolerance = 1 / fps + 0.05;
  if (!(Math.abs(probe.durationSeconds - expect.durationSeconds) <= tolerance)) {
    const got = Number.isFinite(probe.durationSeconds) ? `${probe.durationSeconds.toFixed(2)} s` : 'unknown';
    throw invalid(`The output video lasts ${got}, expected ${expect.durationSeconds} s.`);
  }
  if (expect.audio !== undefined) await verifySound(probe, expect.audio, tolerance - 0.05, file, ffmpegPath);
  return probe;
}

/**
 * The sound rule (invariant 3, docs/architecture.md). The length is held to one frame of the picture's, so a
 * track that stops early or runs on is caught; silence is judged by integrated loudness, the
 * measure a listener's ear follows, rather than by peak sample values that a hiss would pass.
 */
async function verifySound(
  probe: VideoProbe,
  wanted: boolean,
  frame: number,
  file: string,
  ffmpegPath: string | undefined,
): Promise<void> {
  if (!wanted) {
    if (probe.audioStreams > 0) throw invalid('The output video has sound, and none was asked for.');
    return;
  }
  if (probe.audioStreams !== 1 || !probe.audio)
    throw invalid(`The output video has ${probe.audioStreams} audio streams, expected one.`);
  const seconds = probe.audio.durationSeconds;
  if (!(Math.abs(seconds - probe.durationSeconds) <= frame + 1e-3)) {
    const got = Number.isFinite(seconds) ? `${seconds.toFixed(3)} s` : 'unknown';
    throw invalid(`The output's sound lasts ${got}, and its picture ${probe.durationSeconds.toFixed(3)} s.`);
  }
  if (!ffmpegPath) throw invalid('The output video has sound that could not be measured.');
  const lufs = await measureLoudness(ffmpegPath, file).catch((err: unknown) => {
    throw invalid('The output video has sound that could not be decoded.', err);
  });
  if (!(lufs > SILENCE_LUFS)) throw invalid('The output video has an audio stream, but it is silent.');
}

function invalid(message: string, cause?: unknown): OutputRejected {
  const err = new OutputRejected(message);
  // Kept for operators' logs only; the message above is what callers see.
  if (cause !== undefined) Object.defineProperty(err, 'cause', { value: cause, enumerable: false });
  return err;
}
