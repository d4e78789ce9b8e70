/**
 * Writes docs/samples/sound/<kind>.mp4: one short clip of the built-in renderer per kind of
 * soundtrack (sound/sound-scene.ts), made exactly as a task with `generate_audio: true` makes it,
 * small in picture so the files stay small (the sound is the point).
 *
 *   node --import tsx scripts/write-sound-samples.ts
 */
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FfmpegRenderer } from '../packages/server/src/generators/ffmpeg/ffmpeg-renderer.ts';
import { resolveFfmpegBinaries } from '../packages/server/src/media/ffmpeg-binaries.ts';
import { memoryCheckpoint } from '../packages/server/src/generators/generator.ts';
import { measureLoudness } from '../packages/server/src/media/audio-loudness.ts';

const SAMPLES: Record<string, string> = {
  rain: 'rain falling in a forest',
  wind: 'wind over snowy mountains',
  surf: 'waves rolling onto a beach at sunset',
  fire: 'a crackling campfire at night',
  birds: 'a meadow with trees in spring',
  insects: 'a meadow at night',
  traffic: 'a busy city street',
  music: 'abstract swirling shapes',
};

const bins = resolveFfmpegBinaries({});
const renderer = new FfmpegRenderer({ ffmpeg: bins.ffmpeg, threads: 1 });
const out = join('docs', 'samples', 'sound');
await mkdir(out, { recursive: true });
const work = await mkdtemp(join(tmpdir(), 'vidgen-sound-samples-'));
try {
  for (const [kind, prompt] of Object.entries(SAMPLES)) {
    const workDir = await mkdtemp(join(work, `${kind}-`));
    const made = await renderer.generate(
      {
        ...{ taskId: kind, attempt: 1, kind: 'generate', prompt, width: 192, height: 108, duration: 3, fps: 24 },
        ...{ seed: 1, images: [], audio: true },
      },
      {
        signal: new AbortController().signal,
        stopReason: () => undefined,
        onProgress: () => {},
        workDir,
        checkpoint: memoryCheckpoint(),
      },
    );
    await copyFile(made.path, join(out, `${kind}.mp4`));
    console.log(`${kind.padEnd(8)} "${prompt}"  ${(await measureLoudness(bins.ffmpeg, made.path)).toFixed(1)} LUFS`);
  }
} finally {
  await rm(work, { recursive: true, force: true });
}
