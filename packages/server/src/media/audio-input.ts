/**
 * Input audio (reference audio, the soundtrack's bed): recognise WAV, MP3 and AAC/M4A by their
 * magic bytes (invariant 5, docs/architecture.md: never by a name or a Content-Type), probe it with
 * ffprobe and hold it to the limits below before any generator sees it. Messages are safe to show
 * the caller: never a path, never ffprobe's words.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type AudioMimeType = 'audio/wav' | 'audio/mpeg' | 'audio/aac' | 'audio/mp4';

/** What the service takes as one reference audio (docs/inputs.md). */
export const INPUT_AUDIO_LIMITS = { maxSeconds: 15, maxBytes: 10 * 1024 * 1024 };

/** The file extension each kind is written with, so that ffmpeg's demuxers recognise it. */
export const AUDIO_EXTENSIONS: Readonly<Record<AudioMimeType, string>> = {
  'audio/wav': 'wav',
  'audio/mpeg': 'mp3',
  'audio/aac': 'aac',
  'audio/mp4': 'm4a',
};

/** Why an input audio was refused; `message` is safe to show the caller. */
export class AudioRejected extends Error {}

export interface AudioProbe {
  codec: string;
  durationSeconds: number;
  /** Whether the file also holds a picture stream that is not cover art. */
  hasVideo: boolean;
}

export type AudioProber = (file: string, signal?: AbortSignal) => Promise<AudioProbe>;

/** The kind of audio the bytes really are, or undefined. */
export function sniffAudioType(bytes: Buffer): AudioMimeType | undefined {
  if (bytes.length < 12) return undefined;
  if (bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WAVE') return 'audio/wav';
  if (bytes.toString('latin1', 0, 3) === 'ID3') return 'audio/mpeg';
  // An MP4 whose major brand says audio (iTunes' M4A/M4B, what ffmpeg writes for .m4a).
  if (bytes.toString('latin1', 4, 8) === 'ftyp' && /^M4[AB] $/.test(bytes.toString('latin1', 8, 12)))
    return 'audio/mp4';
  if (bytes[0] === 0xff && (bytes[1] & 0xf6) === 0xf0) return 'audio/aac'; // ADTS: 12-bit sync, layer 00
  if (bytes[0] === 0xff && (bytes[1] & 0xe0) === 0xe0 && (bytes[1] & 0x06) !== 0) return 'audio/mpeg'; // MPEG frame
  return undefined;
}

const DATA_URI = /^data:audio\/(wav|x-wav|wave|mpeg|mp3|aac|mp4|m4a|x-m4a);base64,/i;
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The bytes of an audio data URI (`data:audio/wav;base64,…`, also mpeg, mp3, aac, mp4, m4a),
 * undefined for a value that is not a data URI, AudioRejected for a malformed one. The declared
 * type is not trusted: the bytes are sniffed by `checkAudioBytes`.
 */
export function decodeAudioDataUri(value: string): Buffer | undefined {
  if (!/^data:/i.test(value)) return undefined;
  const prefix = DATA_URI.exec(value)?.[0];
  if (prefix === undefined) {
    throw new AudioRejected(
      'Audio data URIs must start with data:audio/wav, audio/mpeg, audio/aac or audio/mp4;base64,.',
    );
  }
  const payload = value.slice(prefix.length);
  if (payload === '' || !STRICT_BASE64.test(payload))
    throw new AudioRejected('The data URI does not contain valid Base64 data.');
  return Buffer.from(payload, 'base64');
}

/** Checks audio in memory (an upload, a data URI): sniffed, written to a private temp file and probed. */
export async function checkAudioBytes(probe: AudioProber, bytes: Buffer): Promise<{ mimeType: AudioMimeType }> {
  const mimeType = sniffAudioType(bytes);
  if (!mimeType) throw new AudioRejected('The audio is not a WAV, MP3 or AAC/M4A file.');
  checkSize(bytes.length);
  const dir = await mkdtemp(join(tmpdir(), 'vidgen-audio-'));
  try {
    const file = join(dir, `input.${AUDIO_EXTENSIONS[mimeType]}`);
    await writeFile(file, bytes);
    await checkAudioFile(probe, file);
    return { mimeType };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Probes a local audio file (already sniffed) and holds it to the limits. */
export async function checkAudioFile(probe: AudioProber, file: string, signal?: AbortSignal): Promise<AudioProbe> {
  let facts: AudioProbe;
  try {
    facts = await probe(file, signal);
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new AudioRejected('The audio could not be read: it has no playable audio stream.');
  }
  if (facts.hasVideo) throw new AudioRejected('The file holds a video; send reference audio as WAV, MP3 or AAC/M4A.');
  if (!(facts.durationSeconds > 0)) throw new AudioRejected('The audio has no measurable length.');
  if (facts.durationSeconds > INPUT_AUDIO_LIMITS.maxSeconds + 0.05) {
    throw new AudioRejected(
      `The audio lasts ${facts.durationSeconds.toFixed(1)} s; at most ${INPUT_AUDIO_LIMITS.maxSeconds} s is accepted.`,
    );
  }
  return facts;
}

export function checkSize(bytes: number): void {
  if (bytes > INPUT_AUDIO_LIMITS.maxBytes) {
    const mb = INPUT_AUDIO_LIMITS.maxBytes / 1024 / 1024;
    throw new AudioRejected(`The audio is ${(bytes / 1024 / 1024).toFixed(1)} MB; at most ${mb} MB is accepted.`);
  }
}

interface FfprobeAudio {
  streams?: Array<{
    codec_type?: string;
    codec_name?: string;
    duration?: string;
    disposition?: { attached_pic?: number };
  }>;
  format?: { duration?: string };
}

/** ffprobe's facts of an audio file: the first audio stream, and whether a real picture stream is there too. */
export async function probeAudio(ffprobePath: string, file: string, signal?: AbortSignal): Promise<AudioProbe> {
  const args = ['-v', 'error', '-show_streams', '-show_format', '-of', 'json', file];
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(ffprobePath, args, { signal, timeout: 30_000, maxBuffer: 4 * 1024 * 1024 }, (err, out) =>
      err ? reject(err) : resolve(out),
    );
  });
  const parsed = JSON.parse(stdout) as FfprobeAudio;
  const audio = parsed.streams?.find((s) => s.codec_type === 'audio');
  if (!audio?.codec_name) throw new AudioRejected('The file holds no audio stream.');
  const duration = Number(audio.duration ?? parsed.format?.duration);
  const hasVideo = (parsed.streams ?? []).some((s) => s.codec_type === 'video' && !s.disposition?.attached_pic);
  return { codec: audio.codec_name, durationSeconds: Number.isFinite(duration) ? duration : NaN, hasVideo };
}
