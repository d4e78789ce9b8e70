/**
 * Extensions: the input video, then its last frame brought to life by a camera move from the
 * prompt for the requested seconds, encoded as one stream. One encoder for both parts is what makes
 * the join seamless: same size, rate, pixel format and colour tags, no second keyframe at the seam.
 *
 * The input's frames are decoded in a separate ffmpeg process and pass through this one on their
 * way to the encoder, so the last frame is known exactly as it was encoded, bit for bit, without a
 * second decode. The move then starts at rest on exactly that frame (camera-shot.ts), so the first
 * new frame differs from the last old one by a fraction of a pixel.
 *
 * With sound asked for, the input's sound carries on and the prompt's sound takes over across the
 * seam (sound/soundtrack.ts); an input without sound gets a soundtrack of the prompt throughout.
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
import { parseRate } from '../../media/video-probe.ts';
import { decodeAudio } from './sound/decode-audio.ts';
import { composeSoundtrack, continueSoundtrack, samplesFor } from './sound/soundtrack.ts';
import { soundtrackArgs, writeSoundtrack } from './sound/soundtrack-file.ts';

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
  const soundtrack = job.audio ? await extensionSound(job, ctx, run.ffmpeg, total) : undefined;
  const sound = soundtrackArgs(soundtrack, 1);
  await runFfmpeg(run.ffmpeg, {
    args: [
      ...QUIET,
      ...rawFramesInput(size, video.frameRate),
      ...sound.input,
      '-map',
      '0:v:0',
      ...sound.map,
      '-vf',
      'setsar=1',
      ...x264Output(run.encoder, outPath, soundtrack !== undefined),
    ],
    stdin: joined(input, (last) => extensionFrames(job, size, last, added)),
    signal: ctx.signal,
    onFrame: (frame) => run.progress(Math.min(1, frame / total)),
  });
  return { path: outPath, expect: { ...size, durationSeconds: video.durationSeconds + job.duration } };
}

/**
 * The extension's sound, as a WAV file: the input's own sound continued across the seam by the
 * prompt's (sound/soundtrack.ts, continueSoundtrack), or, for an input without sound, a soundtrack
 * of the prompt for the whole length.
 */
async function extensionSound(job: GenerationJob, ctx: GenerationContext, ffmpeg: string, total: number) {
  const video = job.video!;
  const rate = parseRate(video.frameRate) ?? job.fps;
  const samples = samplesFor(total / rate);
  const mix = video.hasAudio
    ? continueSoundtrack(
        await decodeAudio(ffmpeg, video.path, samplesFor(video.frames / rate), ctx.signal),
        job.prompt,
        job.seed,
        samples,
      )
    : composeSoundtrack(job.prompt, job.seed, samples);
  return writeSoundtrack(ctx.workDir, mix);
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
