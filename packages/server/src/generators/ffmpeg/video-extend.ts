/**
 * Extensions: the input video, then its last frame brought to life by a camera move from the
 * prompt for the requested seconds, encoded as one stream. One encoder for both parts is what makes
 * the join seamless: same size, rate, pixel format and colour tags, no second keyframe at the seam.
 *
 * The input's frames are decoded in a separate ffmpeg process and pass through this one on their
 * way to the encoder, so the last frame is known exactly as it was encoded, bit for bit, without a
 * second decode. The move then starts at rest on exactly that frame (camera-shot.ts), so the first
 * new frame differs from the last old one by a fraction of a pixel.
 */
import { join } from 'node:path';
import type { GenerationContext, GenerationJob, GenerationOutput } from '../generator.ts';
import { parseCameraMotion } from './camera-move.ts';
import { extensionCanvasScale, planExtensionShot, type Shot } from './camera-shot.ts';
import { createKernels } from './bilinear-kernels.ts';
import { decodeFrames } from './decode-frames.ts';
import { frameBytes, QUIET, rawFramesInput, TO_BT709, x264Output, type EncoderSettings } from './encode-args.ts';
import { FrameResampler, type Size } from './frame-resampler.ts';
import { runFfmpeg } from './run-ffmpeg.ts';
import { seededRandom } from './seeded-random.ts';
import { mirrorPad } from './yuv-canvas.ts';

export interface ExtendRun {
  ffmpeg: string;
  encoder: EncoderSettings;
  progress(fraction: number): void;
}

export async function renderExtension(
  job: GenerationJob,
  ctx: GenerationContext,
  run: ExtendRun,
): Promise<GenerationOutput> {
  const video = job.video!;
  const size: Size = { width: job.width, height: job.height };
  const added = Math.max(1, Math.round(job.duration * job.fps));
  const total = video.frames + added;
  const outPath = join(ctx.workDir, 'output.mp4');
  const even =
    video.width !== size.width || video.height !== size.height ? [`crop=${size.width}:${size.height}:0:0`] : [];
  const input = decodeFrames(run.ffmpeg, {
    // The input at a constant rate, even-sided, in the encoder's pixel format: its frames are the output's.
    args: ['-i', video.path, '-map', '0:v:0', '-vf', [...even, `fps=${video.frameRate}`, ...TO_BT709].join(',')],
    frameBytes: frameBytes(size),
    signal: ctx.signal,
  });
  await runFfmpeg(run.ffmpeg, {
    args: [...QUIET, ...rawFramesInput(size, video.frameRate), '-vf', 'setsar=1', ...x264Output(run.encoder, outPath)],
    stdin: joined(input, (last) => extensionFrames(job, size, last, added)),
    signal: ctx.signal,
    onFrame: (frame) => run.progress(Math.min(1, frame / total)),
  });
  return { path: outPath, expect: { ...size, durationSeconds: video.durationSeconds + job.duration } };
}

/** The input's frames, then what `then` makes of the last one. */
async function* joined(input: AsyncIterable<Buffer>, then: (last: Buffer) => Iterable<Buffer>): AsyncGenerator<Buffer> {
  let last: Buffer | undefined;
  for await (const frame of input) {
    last = frame;
    yield frame;
  }
  if (last) yield* then(last);
}

/** `count` frames moving away from `last` along the prompt's camera move. */
function* extensionFrames(job: GenerationJob, size: Size, last: Buffer, count: number): Iterable<Buffer> {
  const motion = parseCameraMotion(job.prompt);
  const scale = extensionCanvasScale(motion, job.duration);
  // Only a pull-back needs picture beyond the frame: the frame's own mirror image, around it.
  const pad = { x: even((size.width * (scale - 1)) / 2), y: even((size.height * (scale - 1)) / 2) };
  const canvas = pad.x || pad.y ? mirrorPad(last, size, pad) : { ...size, yuv420: last };
  const frameZoom = { x: canvas.width / size.width, y: canvas.height / size.height };
  const shot: Shot = planExtensionShot(
    motion,
    job.duration,
    seededRandom(`camera\u0000${job.prompt}`, job.seed ?? 0),
    frameZoom,
  );
  const resampler = new FrameResampler(createKernels(), canvas, size);
  // Frame j shows the move at (j + 1) / count: the first new frame is already one step on, so the
  // last old frame is not shown twice; the move starts at rest, so that step is tiny.
  for (let j = 0; j < count; j++) yield resampler.frame(shot.viewAt((j + 1) / count));
}

const even = (v: number) => 2 * Math.round(v / 2);
