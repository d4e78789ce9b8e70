/**
 * A job's inputs as a relay sends them: each file read from the attempt's workDir and carried
 * inline as a data URI, so no upstream ever has to reach back to us, each checked by its magic
 * bytes first (anything unreadable is refused here rather than paid for upstream).
 */
import { readFile } from 'node:fs/promises';
import { jobInputs, type GenerationJob, type JobInput } from '../generator.ts';
import { relayFailures } from './relay-failures.ts';

export interface PayloadInputs {
  lastFrame?: string;
  keyframes?: Array<{ image: string; atSeconds: number }>;
  referenceImages?: string[];
  referenceAudios?: string[];
  referenceVideos?: string[];
}

/** Every input of the job with its role, the first frame included. */
export function allInputs(job: Pick<GenerationJob, 'images' | 'inputs'>): JobInput[] {
  return job.inputs ?? jobInputs(job, 'first_frame');
}

export async function payloadInputs(job: Pick<GenerationJob, 'images' | 'inputs'>): Promise<PayloadInputs> {
  const of = (role: JobInput['role']) => jobInputs(job, role);
  const out: PayloadInputs = {};
  const [last] = of('last_frame');
  if (last) out.lastFrame = await dataUri(last.path);
  const keyframes = of('keyframe');
  if (keyframes.length > 0)
    out.keyframes = await Promise.all(
      keyframes.map(async (k) => ({ image: await dataUri(k.path), atSeconds: k.atSeconds ?? 0 })),
    );
  const list = async (role: JobInput['role'], read: (path: string) => Promise<string>) => {
    const found = of(role);
    return found.length > 0 ? Promise.all(found.map((input) => read(input.path))) : undefined;
  };
  const references = await list('reference_image', dataUri);
  if (references) out.referenceImages = references;
  const audios = await list('reference_audio', audioDataUri);
  if (audios) out.referenceAudios = audios;
  const videos = await list('reference_video', videoDataUri);
  if (videos) out.referenceVideos = videos;
  return out;
}

/** Input images arrive as re-encoded PNGs; anything else is refused here rather than paid for upstream. */
export async function dataUri(path: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch {
    throw relayFailures.invalidImage();
  }
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return `data:image/png;base64,${bytes.toString('base64')}`;
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff)
    return `data:image/jpeg;base64,${bytes.toString('base64')}`;
  throw relayFailures.invalidImage();
}

/**
 * The engine fetched and probed the input (engine/inputs/video-inputs.ts); it is sent inline, so the upstream never has
 * to reach us.
 */
export async function videoDataUri(path: string): Promise<string> {
  const bytes = await readFile(path).catch(() => undefined);
  if (!bytes || bytes.subarray(4, 8).toString('latin1') !== 'ftyp') throw relayFailures.invalidVideo();
  return `data:video/mp4;base64,${bytes.toString('base64')}`;
}

/** Reference sound, checked at submit as WAV, MP3, AAC (ADTS) or M4A; named here by its own bytes. */
export async function audioDataUri(path: string): Promise<string> {
  const bytes = await readFile(path).catch(() => undefined);
  const type = bytes ? audioType(bytes) : undefined;
  if (!bytes || !type) throw relayFailures.invalidAudio();
  return `data:${type};base64,${bytes.toString('base64')}`;
}

function audioType(b: Buffer): string | undefined {
  if (b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WAVE')
    return 'audio/wav';
  if (b.subarray(4, 8).toString('latin1') === 'ftyp') return 'audio/mp4';
  if (b.subarray(0, 3).toString('latin1') === 'ID3') return 'audio/mpeg';
  // An ADTS header (AAC) has layer bits 00; an MPEG audio frame (MP3) has them set.
  if (b[0] === 0xff && (b[1] & 0xf0) === 0xf0 && (b[1] & 0x06) === 0) return 'audio/aac';
  if (b[0] === 0xff && (b[1] & 0xe0) === 0xe0) return 'audio/mpeg';
  return undefined;
}
