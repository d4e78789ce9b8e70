/** Reads the shape of an input video a stand-in receives as a data URI (what xAI's clients send for a local file). */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveFfmpegBinaries } from '../../src/media/ffmpeg-binaries.ts';
import { probeVideo } from '../../src/media/video-probe.ts';

export async function probeDataUri(
  uri: string,
): Promise<{ width: number; height: number; seconds: number } | undefined> {
  const dir = await mkdtemp(join(tmpdir(), 'vidgen-standin-input-'));
  try {
    const file = join(dir, 'input.mp4');
    await writeFile(file, Buffer.from(uri.slice(uri.indexOf(',') + 1), 'base64'));
    const probe = await probeVideo(resolveFfmpegBinaries({}).ffprobe, file);
    return { width: probe.width, height: probe.height, seconds: Math.round(probe.durationSeconds) };
  } catch {
    return undefined;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
