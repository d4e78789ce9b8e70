import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { resolveFfmpegBinaries } from '../../../packages/server/src/media/ffmpeg-binaries.ts';

const run = promisify(execFile);

/** A real audio file made by the bundled ffmpeg: a tone of `seconds`, as WAV, MP3 or M4A (AAC). */
export async function makeAudio(seconds: number, format: 'wav' | 'mp3' | 'm4a' = 'wav'): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'vidgen-audio-'));
  try {
    const out = join(dir, `tone.${format}`);
    const codec =
      format === 'wav' ? ['-c:a', 'pcm_s16le'] : format === 'mp3' ? ['-c:a', 'libmp3lame'] : ['-c:a', 'aac'];
    const args = ['-v', 'error', '-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`, ...codec, '-y', out];
    await run(resolveFfmpegBinaries().ffmpeg, args);
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function audioDataUri(bytes: Buffer, mime = 'audio/wav'): string {
  return `data:${mime};base64,${bytes.toString('base64')}`;
}
