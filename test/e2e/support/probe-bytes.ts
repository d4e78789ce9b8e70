import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveFfmpegBinaries } from '../../../packages/server/src/media/ffmpeg-binaries.ts';
import { probeVideo } from '../../../packages/server/src/media/video-probe.ts';

const { ffprobe } = resolveFfmpegBinaries({});

/** Probes downloaded MP4 bytes with ffprobe, as a client would check them. */
export async function probeBytes(bytes: Buffer) {
  const dir = await mkdtemp(join(tmpdir(), 'vidgen-probe-'));
  try {
    const file = join(dir, 'video.mp4');
    await writeFile(file, bytes);
    return await probeVideo(ffprobe, file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
