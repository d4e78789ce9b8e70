/**
 * Built-in renderer CPU time against ffmpeg making a comparable moving clip by itself, same run.
 *
 * For each size, `frames` frames of H.264 at the output size, same preset, threads and output flags:
 *   - baseline:      `testsrc2` at the renderer's canvas size, pushed in by `zoompan` to the output size
 *                    (ffmpeg draws, moves and encodes a clip by itself: the least any renderer of a
 *                    moving picture costs around x264);
 *   - renderer i2v:  FfmpegRenderer with a photo-like still as the input image (default push-in);
 *   - renderer t2v:  FfmpegRenderer drawing "sunset over the ocean" (a scene with particles: glints);
 *   - encode i2v/t2v frames (with --floors): x264 alone on each renderer's own frames, decoded to raw
 *                    beforehand: what the encoder alone costs for those pictures, so the rest of a
 *                    renderer's figure is its own work (canvas, resampling, particles, pipe).
 * Measures CPU seconds (user + system of this process and its ffmpeg child; see support/cpu-time.ts),
 * not wall time: the machine is shared. Each round runs every case back to back, in a rotating order;
 * the printed ratio is the median over rounds of that round's renderer/baseline (not a ratio of
 * medians), with the load average beside it. Aim: t2v/baseline <= 1.2.
 *
 *   node --import tsx bench/renderer.bench.ts [--runs 5] [--seconds 5] [--preset veryfast]
 *                                             [--sizes 720p,1080p] [--floors]
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { FfmpegRenderer } from '../packages/server/src/generators/ffmpeg/ffmpeg-renderer.ts';
import { canvasSize } from '../packages/server/src/generators/ffmpeg/render-canvas.ts';
import { DEFAULT_CAMERA_MOVE, cameraPath, maxZoom } from '../packages/server/src/generators/ffmpeg/camera-move.ts';
import { x264Output } from '../packages/server/src/generators/ffmpeg/encode-args.ts';
import { buildSceneSvg } from '../packages/server/src/generators/ffmpeg/scene-svg.ts';
import { resolveFfmpegBinaries } from '../packages/server/src/media/ffmpeg-binaries.ts';
import { memoryCheckpoint, type GenerationJob } from '../packages/server/src/generators/generator.ts';
import { cpuOf } from './support/cpu-time.ts';
import { load, median, numberArg } from './support/paired.ts';

if (process.argv.includes('--help')) {
  console.log(
    'node --import tsx bench/renderer.bench.ts [--runs 5] [--seconds 5] [--preset veryfast] [--sizes 720p,1080p] [--floors]',
  );
  process.exit(0);
}
const run = promisify(execFile);
const textArg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const runs = numberArg('runs', 5);
const seconds = numberArg('seconds', 5);
const preset = textArg('preset', 'veryfast');
const SIZES: Record<string, [number, number]> = { '480p': [854, 480], '720p': [1280, 720], '1080p': [1920, 1080] };
const sizes = textArg('sizes', '720p,1080p').split(',');
const floors = process.argv.includes('--floors');
const fps = 24;
const frames = seconds * fps;
const { ffmpeg } = resolveFfmpegBinaries({});
const renderer = new FfmpegRenderer({ ffmpeg, preset });
const encoder = { preset, threads: 0 };

/** A photo-like still: a drawn landscape with sensor-like grain and a lens's softness. */
async function photoLikeStill(width: number, height: number): Promise<Buffer> {
  const svg = buildSceneSvg({ prompt: 'mountain lake in the evening', seed: 3, width, height });
  const { data, info } = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let state = 1;
  for (let i = 0; i < data.length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    // Sum of two uniforms: a roughly bell-shaped grain of +-10 levels.
    const grain = ((state >>> 24) + ((state >>> 16) & 255)) / 25.6 - 10;
    data[i] = Math.max(0, Math.min(255, data[i] + grain));
  }
  return sharp(data, { raw: info }).blur(0.7).png({ compressionLevel: 6 }).toBuffer();
}

async function benchSize(label: string, width: number, height: number, dir: string) {
  // The still and the test pattern are exactly the canvas the renderer makes for its default move.
  const zoom = maxZoom(cameraPath(DEFAULT_CAMERA_MOVE, seconds));
  const canvas = canvasSize({ width, height }, zoom);
  const still = join(dir, `still-${label}.png`);
  await writeFile(still, await photoLikeStill(canvas.width, canvas.height));
  const job = (prompt: string, images: string[]): GenerationJob => ({
    taskId: 'bench',
    attempt: 1,
    kind: 'generate',
    prompt,
    width,
    height,
    duration: seconds,
    fps,
    seed: 1,
    images,
  });
  const render = async (j: GenerationJob) => {
    const workDir = await mkdtemp(join(dir, 'job-'));
    return (
      await renderer.generate(j, {
        signal: new AbortController().signal,
        stopReason: () => undefined,
        onProgress: () => {},
        workDir,
        checkpoint: memoryCheckpoint(),
      })
    ).path;
  };
  const i2v = job('a mountain lake in the evening', [still]);
  const t2v = job('sunset over the ocean', []);
  const raw = ['-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-video_size', `${width}x${height}`, '-framerate', String(fps)];
  const encodeOf = (file: string) => () =>
    run(ffmpeg, [
      '-v',
      'error',
      ...raw,
      '-i',
      file,
      '-frames:v',
      String(frames),
      ...x264Output(encoder, join(dir, 'e.mp4')),
    ]);
  // Warm-up (sharp, librsvg, page cache), and each renderer's frames for the encode-only floors.
  const decoded: Record<string, string> = {};
  for (const [name, j] of [
    ['i2v', i2v],
    ['t2v', t2v],
  ] as const) {
    decoded[name] = join(dir, `${name}-${label}.yuv`);
    await run(ffmpeg, [
      '-v',
      'error',
      '-i',
      await render(j),
      '-f',
      'rawvideo',
      '-pix_fmt',
      'yuv420p',
      '-y',
      decoded[name],
    ]);
  }
  const z = `1+${(zoom - 1).toFixed(4)}*on/${Math.max(1, frames - 1)}`;
  const pattern = `testsrc2=size=${canvas.width}x${canvas.height}:rate=${fps}`;
  const push = `zoompan=z='${z}':x='iw/2-iw/zoom/2':y='ih/2-ih/zoom/2':d=1:s=${width}x${height}:fps=${fps},format=yuv420p`;
  const cases: Record<string, () => Promise<unknown>> = {
    baseline: () =>
      run(ffmpeg, [
        '-v',
        'error',
        '-f',
        'lavfi',
        '-i',
        pattern,
        '-vf',
        push,
        '-frames:v',
        String(frames),
        ...x264Output(encoder, join(dir, 'b.mp4')),
      ]),
    'renderer i2v': () => render(i2v),
    'renderer t2v': () => render(t2v),
    ...(floors ? { 'encode i2v frames': encodeOf(decoded.i2v), 'encode t2v frames': encodeOf(decoded.t2v) } : {}),
  };
  const names = Object.keys(cases);
  const cpu: Record<string, number[]> = Object.fromEntries(names.map((k) => [k, []]));
  for (let r = 0; r < runs; r++) {
    // Rotated each round, so no case always runs first (or always right after the same neighbour).
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + r) % names.length];
      cpu[name].push(await cpuOf(cases[name]));
    }
  }
  console.log(
    `\n${label} ${width}x${height}, ${seconds} s @ ${fps} fps = ${frames} frames, canvas ${canvas.width}x${canvas.height}, preset ${preset}, ${runs} rounds, ${load()}`,
  );
  for (const name of names) {
    console.log(
      `  ${name.padEnd(18)} CPU median ${median(cpu[name]).toFixed(2)} s   [${cpu[name].map((x) => x.toFixed(2)).join(', ')}]`,
    );
  }
  const ratio = (subject: string, base: string) => {
    const ratios = cpu[subject].map((s, r) => s / cpu[base][r]);
    return `${median(ratios).toFixed(2)} (paired: ${ratios.map((x) => x.toFixed(2)).join(' ')})`;
  };
  for (const name of ['renderer i2v', 'renderer t2v']) console.log(`  ${name} / baseline  ${ratio(name, 'baseline')}`);
  // Independent of the baseline: what text-to-video costs over animating a given image.
  console.log(`  renderer t2v / renderer i2v  ${ratio('renderer t2v', 'renderer i2v')}`);
  if (floors)
    for (const kind of ['i2v', 't2v'])
      console.log(`  renderer ${kind} / encode ${kind} frames  ${ratio(`renderer ${kind}`, `encode ${kind} frames`)}`);
}

const dir = await mkdtemp(join(tmpdir(), 'vidgen-bench-renderer-'));
try {
  for (const size of sizes) {
    if (!SIZES[size]) throw new Error(`unknown size ${size}; one of ${Object.keys(SIZES).join(', ')}`);
    await benchSize(size, ...SIZES[size], dir);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
