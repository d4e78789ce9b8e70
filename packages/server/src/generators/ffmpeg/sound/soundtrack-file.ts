/**
 * A composed soundtrack on its way into ffmpeg: written as a WAV file in the attempt's work
 * directory and read as one more input of the encode that makes the picture, so the sound costs
 * no extra pass over the video (about 1 MB for 5 s).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Stereo } from './dsp.ts';
import { wavBytes } from './soundtrack.ts';

export async function writeSoundtrack(workDir: string, mix: Stereo): Promise<string> {
  const path = join(workDir, 'soundtrack.wav');
  await writeFile(path, wavBytes(mix));
  return path;
}

/** ffmpeg input and map arguments for a soundtrack file that is input number `index` (absent: none). */
export function soundtrackArgs(path: string | undefined, index: number): { input: string[]; map: string[] } {
  return path ? { input: ['-i', path], map: ['-map', `${index}:a:0`] } : { input: [], map: [] };
}
