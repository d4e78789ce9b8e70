/**
 * What sound costs the built-in renderer: CPU seconds of the same generation with and without a
 * soundtrack (composing it, writing the WAV, AAC in the same encode), same prompt, seed and size.
 * Each round renders both back to back, alternating which goes first; the printed ratio is the
 * median over rounds of that round's with/without (the machine is shared: a round shares its load),
 * beside the median of what sound added in CPU seconds. Five rounds by default: a render without
 * sound is only ~1.2 s of CPU, and on a shared box single rounds swing by ±10 %.
 * CPU time of this process and its ffmpeg child (support/cpu-time.ts), not wall time.
 * Aim: with / without <= 1.10 at 720p, 5 s.
 *
 *   node --import tsx bench/sound.bench.ts [--runs 5] [--seconds 5] [--size 720p]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FfmpegRenderer } from '../packages/server/src/generators/ffmpeg/ffmpeg-renderer.ts';
import { resolveFfmpegBinaries } from '../packages/server/src/media/ffmpeg-binaries.ts';
import { memoryCheckpoint, type GenerationJob } from '../packages/server/src/generators/generator.ts';
import { composeSoundtrack, samplesFor } from '../packages/server/src/generators/ffmpeg/sound/soundtrack.ts';
import { cpuOf } from './support/cpu-time.ts';
import { load, median, numberArg } from './support/paired.ts';

if (process.argv.includes('--help')) {
  console.log('node --import tsx bench/sound.bench.ts [--runs 5] [--seconds 5] [--size 720p]');
  process.exit(0);
}
const runs = numberArg('runs', 5);
const seconds = numberArg('seconds', 5);
const sizeIndex = process.argv.indexOf('--size');
const size = sizeIndex >= 0 ? process.argv[sizeIndex + 1] : '720p';
const SIZES: Record<string, [number, number]> = { '480p': [854, 480], '720p': [1280, 720], '1080p': [1920, 1080] };
const [width, height] = SIZES[size] ?? SIZES['720p'];
const fps = 24;
const renderer = new FfmpegRenderer({ ffmpeg: resolveFfmpegBinaries({}).ffmpeg });
// The surf scene (an ocean with glints) and the costliest sound to compose (the music bed's voices).
const PROMPTS = ['sunset over the ocean', 'abstract swirling shapes'];

const dir = await mkdtemp(join(tmpdir(), 'vidgen-bench-sound-'));
try {
  const render = async (prompt: string, audio: boolean) => {
    const job: GenerationJob = {
      ...{ taskId: 'bench', attempt: 1, kind: 'generate', prompt, width, height, duration: seconds, fps },
      ...{ seed: 1, images: [], audio },
    };
    const workDir = await mkdtemp(join(dir, 'job-'));
    await renderer.generate(job, {
      signal: new AbortController().signal,
      stopReason: () => undefined,
      onProgress: () => {},
      workDir,
      checkpoint: memoryCheckpoint(),
    });
    await rm(workDir, { recursive: true, force: true });
  };
  console.log(`sound: ${width}x${height}, ${seconds} s @ ${fps} fps, ${runs} rounds, ${load()}`);
  for (const prompt of PROMPTS) {
    // Warm-up: the JIT, sharp and the page cache, so round 1 is not the odd one out. Two renders: the
    // soundtrack's loops run once or twice a render, and V8 has them optimised only from the third
    // (composing and writing it cost 80-140 ms of CPU in each of the first two, 30-55 ms after).
    for (let i = 0; i < 2; i++) await render(prompt, true);
    const without: number[] = [];
    const withSound: number[] = [];
    for (let r = 0; r < runs; r++) {
      const order = r % 2 === 0 ? [false, true] : [true, false];
      for (const audio of order) (audio ? withSound : without).push(await cpuOf(() => render(prompt, audio)));
    }
    const ratios = withSound.map((w, r) => w / without[r]);
    const added = withSound.map((w, r) => w - without[r]);
    const compose = await cpuOf(async () => composeSoundtrack(prompt, 1, samplesFor(seconds)));
    console.log(`  "${prompt}"`);
    console.log(`    without sound  CPU median ${median(without).toFixed(2)} s  [${without.map((x) => x.toFixed(2))}]`);
    console.log(
      `    with sound     CPU median ${median(withSound).toFixed(2)} s  [${withSound.map((x) => x.toFixed(2))}]`,
    );
    console.log(`    composing the soundtrack alone: ${(compose * 1000).toFixed(0)} ms`);
    console.log(
      `    with / without  ${median(ratios).toFixed(3)} (paired: ${ratios.map((x) => x.toFixed(3)).join(' ')})`,
    );
    console.log(`    sound added     ${(median(added) * 1000).toFixed(0)} ms CPU (median of the paired differences)`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
