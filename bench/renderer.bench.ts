/**
 * Built-in renderer wall time against raw ffmpeg encoding the same frames, measured in the same run.
 *
 * For each size, one photo-like still at the renderer's canvas size (1.1x the output for the default
 * slow push-in over 5 s) becomes `frames` frames of H.264 at the output size, same preset and threads:
 *   - loop baseline:    `ffmpeg -loop 1 -i still.png -vf scale ...`, the usual way to make a video
 *                       of a still (ffmpeg decodes the PNG again for every frame);
 *   - encode baseline:  the still decoded and scaled once, then looped: x264 alone, encoding
 *                       identical frames, which is the cheapest H.264 of that length there is;
 *   - motion encode:    x264 alone on the renderer's own (moving) frames, decoded to raw beforehand:
 *                       the floor for any renderer of this motion at this preset, because moving
 *                       pictures cost x264 about 1.5x what identical ones do;
 *   - renderer i2v:     FfmpegRenderer with that still as the input image (default push-in);
 *   - renderer t2v:     FfmpegRenderer drawing "sunset over the ocean".
 * Prints medians (and minimums: other work on the machine only ever adds time) and ratios
 * renderer/baseline; aim: renderer/loop baseline <= 1.25 (measured 0.3-0.45), and renderer/motion
 * encode as near 1 as we can (measured ~1.4: canvas, pipe and process start-up).
 *
 *   node --import tsx bench/renderer.bench.ts [--runs 5] [--seconds 5] [--preset veryfast]
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
import { buildSceneSvg } from '../packages/server/src/generators/ffmpeg/scene-svg.ts';
import { resolveFfmpegBinaries } from '../packages/server/src/media/ffmpeg-binaries.ts';
import { memoryCheckpoint, type GenerationJob } from '../packages/server/src/generators/generator.ts';

const run = promisify(execFile);
const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const runs = Number(arg('runs', '5'));
const seconds = Number(arg('seconds', '5'));
const preset = arg('preset', 'veryfast');
const fps = 24;
const frames = seconds * fps;
const { ffmpeg } = resolveFfmpegBinaries({});
const renderer = new FfmpegRenderer({ ffmpeg, preset });

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

function x264(out: string): string[] {
  return ['-frames:v', String(frames), '-an', '-c:v', 'libx264', '-preset', preset, '-threads', '0', '-pix_fmt', 'yuv420p', '-movflags', '+faststart', '-y', out];
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return (performance.now() - start) / 1000;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function benchSize(label: string, width: number, height: number, dir: string) {
  // The still is exactly the canvas the renderer makes for its default move.
  const canvas = canvasSize({ width, height }, maxZoom(cameraPath(DEFAULT_CAMERA_MOVE, seconds)));
  const still = join(dir, `still-${label}.png`);
  await writeFile(still, await photoLikeStill(canvas.width, canvas.height));
  const job = (prompt: string, images: string[]): GenerationJob => ({
    taskId: 'bench', attempt: 1, kind: 'generate', prompt, width, height, duration: seconds, fps, seed: 1, images,
  });
  const render = async (j: GenerationJob) => {
    const workDir = await mkdtemp(join(dir, 'job-'));
    return (await renderer.generate(j, { signal: new AbortController().signal, stopReason: () => undefined, onProgress: () => {}, workDir, checkpoint: memoryCheckpoint() })).path;
  };
  const i2v = job('a mountain lake in the evening', [still]);
  // Warm-up (sharp, librsvg, page cache), and the moving frames for the motion-encode floor.
  const moving = join(dir, `moving-${label}.yuv`);
  await run(ffmpeg, ['-v', 'error', '-i', await render(i2v), '-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-y', moving]);
  await render(job('sunset over the ocean', []));
  const cases: Record<string, () => Promise<unknown>> = {
    'loop baseline': () => run(ffmpeg, ['-v', 'error', '-loop', '1', '-framerate', String(fps), '-i', still, '-vf', `scale=${width}:${height}`, ...x264(join(dir, 'a.mp4'))]),
    'encode baseline': () => run(ffmpeg, ['-v', 'error', '-i', still, '-vf', `scale=${width}:${height},format=yuv420p,loop=loop=${frames - 1}:size=1:start=0,setpts=N/${fps}/TB`, ...x264(join(dir, 'b.mp4'))]),
    'motion encode': () => run(ffmpeg, ['-v', 'error', '-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-video_size', `${width}x${height}`, '-framerate', String(fps), '-i', moving, ...x264(join(dir, 'c.mp4'))]),
    'renderer i2v': () => render(i2v),
    'renderer t2v': () => render(job('sunset over the ocean', [])),
  };
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (let r = 0; r < runs; r++) {
    // Interleaved, so a slow spell on the machine hits every case alike.
    for (const [name, fn] of Object.entries(cases)) times[name].push(await timed(fn));
  }
  const med = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
  const min = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, Math.min(...v)]));
  console.log(`\n${label} ${width}x${height}, ${seconds} s @ ${fps} fps = ${frames} frames, canvas ${canvas.width}x${canvas.height}, preset ${preset}, ${runs} runs`);
  for (const name of Object.keys(cases)) {
    console.log(`  ${name.padEnd(16)} median ${med[name].toFixed(2)} s  min ${min[name].toFixed(2)} s   [${times[name].map((x) => x.toFixed(2)).join(', ')}]`);
  }
  for (const name of ['renderer i2v', 'renderer t2v']) {
    const ratios = ['loop baseline', 'encode baseline', 'motion encode']
      .map((base) => `/${base} ${(med[name] / med[base]).toFixed(2)} (min ${(min[name] / min[base]).toFixed(2)})`);
    console.log(`  ${name}  ${ratios.join('   ')}`);
  }
}

const dir = await mkdtemp(join(tmpdir(), 'vidgen-bench-renderer-'));
try {
  await benchSize('720p', 1280, 720, dir);
  await benchSize('1080p', 1920, 1080, dir);
} finally {
  await rm(dir, { recursive: true, force: true });
}
