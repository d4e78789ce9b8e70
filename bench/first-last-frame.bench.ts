/**
 * What a last frame costs the built-in renderer: CPU seconds of a first-and-last-frame generation
 * (two anchors, a dissolve in motion with colours matched: anchored-frames.ts) against a first-frame
 * generation of the same first picture, prompt, seed and size. Each round renders both back to back,
 * alternating which goes first; the printed ratio is the median over rounds of that round's
 * first+last / first (the machine is shared: a round shares its load). CPU time of this process and
 * its ffmpeg children (support/cpu-time.ts), not wall time. Aim: first+last / first <= 1.3 at 720p, 5 s.
 *
 *   node --import tsx bench/first-last-frame.bench.ts [--runs 3] [--seconds 5] [--size 720p]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { FfmpegRenderer } from '../packages/server/src/generators/ffmpeg/ffmpeg-renderer.ts';
import { buildSceneSvg } from '../packages/server/src/generators/ffmpeg/scene-svg.ts';
import { resolveFfmpegBinaries } from '../packages/server/src/media/ffmpeg-binaries.ts';
import { memoryCheckpoint, type GenerationJob, type JobInput } from '../packages/server/src/generators/generator.ts';
import { cpuOf } from './support/cpu-time.ts';
import { load, median, numberArg } from './support/paired.ts';

if (process.argv.includes('--help')) {
  console.log('node --import tsx bench/first-last-frame.bench.ts [--runs 3] [--seconds 5] [--size 720p]');
  process.exit(0);
}
const runs = numberArg('runs', 3);
const seconds = numberArg('seconds', 5);
const sizeIndex = process.argv.indexOf('--size');
const size = sizeIndex >= 0 ? process.argv[sizeIndex + 1] : '720p';
const SIZES: Record<string, [number, number]> = { '480p': [854, 480], '720p': [1280, 720], '1080p': [1920, 1080] };
const [width, height] = SIZES[size] ?? SIZES['720p'];
const fps = 24;
const renderer = new FfmpegRenderer({ ffmpeg: resolveFfmpegBinaries({}).ffmpeg });
const PROMPT = 'pan right across the valley';

/** A photo-like picture: a drawn landscape with grain and a lens's softness, larger than the output. */
async function photo(path: string, prompt: string, seed: number): Promise<string> {
  const svg = buildSceneSvg({ prompt, seed, width: Math.round(width * 1.4), height: Math.round(height * 1.4) });
  const { data, info } = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let state = seed;
  for (let i = 0; i < data.length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    data[i] = Math.max(0, Math.min(255, data[i] + ((state >>> 24) % 21) - 10));
  }
  await sharp(data, { raw: info }).blur(0.7).png().toFile(path);
  return path;
}

const dir = await mkdtemp(join(tmpdir(), 'vidgen-bench-first-last-'));
try {
  const first = await photo(join(dir, 'first.png'), 'mountain lake in the evening', 3);
  // Another take of the same kind of scene (seed 4: another hue and light), so both pictures cost x264 alike
  // and the ratio measures the renderer's work, not which picture is busier.
  const last = await photo(join(dir, 'last.png'), 'mountain lake in the evening', 4);
  const render = async (inputs: JobInput[]) => {
    const job: GenerationJob = {
      ...{ taskId: 'bench', attempt: 1, kind: 'generate', prompt: PROMPT, width, height, duration: seconds, fps },
      ...{ seed: 1, images: [first], inputs },
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
  const firstOnly: JobInput[] = [{ role: 'first_frame', path: first }];
  const firstAndLast: JobInput[] = [...firstOnly, { role: 'last_frame', path: last }];
  // Warm-up: the JIT, sharp and the page cache, so round 1 is not the odd one out.
  await render(firstAndLast);
  const one: number[] = [];
  const two: number[] = [];
  for (let r = 0; r < runs; r++) {
    const order = r % 2 === 0 ? [false, true] : [true, false];
    for (const both of order) (both ? two : one).push(await cpuOf(() => render(both ? firstAndLast : firstOnly)));
  }
  const ratios = two.map((t, r) => t / one[r]);
  console.log(
    `first-last-frame: ${width}x${height}, ${seconds} s @ ${fps} fps, "${PROMPT}", ${runs} rounds, ${load()}`,
  );
  console.log(`  first frame       CPU median ${median(one).toFixed(2)} s  [${one.map((x) => x.toFixed(2))}]`);
  console.log(`  first + last      CPU median ${median(two).toFixed(2)} s  [${two.map((x) => x.toFixed(2))}]`);
  const ratio = median(ratios);
  console.log(
    `  first+last / first  ${ratio.toFixed(3)} (paired: ${ratios.map((x) => x.toFixed(3)).join(' ')}); ` +
      `aim <= 1.3: ${ratio <= 1.3 ? 'met' : 'missed'}`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
