import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveFfmpegBinaries } from '../../../packages/server/src/media/ffmpeg-binaries.ts';
import { probeVideo } from '../../../packages/server/src/media/video-probe.ts';

const { ffprobe } = resolveFfmpegBinaries({});

/** Downloads a finished video and probes it with ffprobe, as a client would check it. */
export async function downloadAndProbe(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  if (res.status !== 200) throw new Error(`download answered ${res.status}: ${await res.text()}`);
  const bytes = Buffer.from(await res.arrayBuffer());
  const dir = await mkdtemp(join(tmpdir(), 'vidgen-dl-'));
  try {
    const file = join(dir, 'video.mp4');
    await writeFile(file, bytes);
    return { res, bytes, probe: await probeVideo(ffprobe, file) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
