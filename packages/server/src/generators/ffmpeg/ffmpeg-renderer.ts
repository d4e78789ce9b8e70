/**
 * The built-in backend: an honest procedural renderer, not a neural model. It takes one still (the
 * caller's first image, or a landscape drawn from the prompt's words), moves a virtual camera over it
 * as the prompt asks, and encodes exactly `duration * fps` frames of H.264.
 *
 * Frames are cut from the canvas here (frame-resampler.ts) and streamed to ffmpeg as raw yuv420p,
 * just ahead of the encoder: ffmpeg only encodes, and the two run on separate cores.
 */
import { join } from 'node:path';
import type { TaskKind } from '../../engine/task.ts';
import { GenerationError, type GenerationContext, type GenerationJob, type GenerationOutput, type Generator } from '../generator.ts';
import { cameraPath, maxZoom, parseCameraMove, viewAt, type CameraPath } from './camera-move.ts';
import { createKernels } from './bilinear-kernels.ts';
import { FrameResampler, type Size } from './frame-resampler.ts';
import { canvasSize, imageCanvas, sceneCanvas } from './render-canvas.ts';
import { canceled, renderFailed, runFfmpeg } from './run-ffmpeg.ts';

export interface FfmpegRendererOptions {
  /** Path of the ffmpeg executable (see media/ffmpeg-binaries.ts). */
  ffmpeg: string;
  /** x264 preset; `veryfast` by default (see bench/renderer.bench.ts for the measured trade-off). */
  preset?: string;
  /** Encoder threads; 0 or absent lets x264 choose from the core count. */
  threads?: number;
}

const PRESETS = ['ultrafast', 'superfast', 'veryfast', 'faster', 'fast', 'medium', 'slow', 'slower', 'veryslow'];
// Share of the progress bar spent drawing the still, before the first frame is encoded.
const PREPARE_SHARE = 0.05;
const MAX_SIDE = 4096;
const MAX_FRAMES = 60 * 60;

export class FfmpegRenderer implements Generator {
  readonly kinds: readonly TaskKind[] = ['generate'];
  private readonly ffmpeg: string;
  private readonly preset: string;
  private readonly threads: number;

  constructor(options: FfmpegRendererOptions) {
    this.ffmpeg = options.ffmpeg;
    this.preset = options.preset ?? 'veryfast';
    this.threads = options.threads ?? 0;
    if (!PRESETS.includes(this.preset)) throw new Error(`Unknown x264 preset '${this.preset}'.`);
    if (!Number.isInteger(this.threads) || this.threads < 0) throw new Error('threads must be a whole number >= 0.');
  }

  async generate(job: GenerationJob, ctx: GenerationContext): Promise<GenerationOutput> {
    try {
      return await this.render(job, ctx);
    } catch (err) {
      // Callers may rely on GenerationError; anything else is our own fault, and may pass on retry.
      if (err instanceof GenerationError) throw err;
      throw renderFailed();
    }
  }

  private async render(job: GenerationJob, ctx: GenerationContext): Promise<GenerationOutput> {
    const frames = checkJob(job);
    const progress = monotonic(ctx.onProgress);
    if (ctx.signal.aborted) throw canceled();
    const output: Size = { width: job.width, height: job.height };
    const path = cameraPath(parseCameraMove(job.prompt), job.duration);
    const size = canvasSize(output, maxZoom(path));
    const canvas = job.images.length > 0
      ? await imageCanvas(job.images[0], size)
      : await sceneCanvas(job.prompt, job.seed, size);
    if (ctx.signal.aborted) throw canceled();
    progress(PREPARE_SHARE);
    const outPath = join(ctx.workDir, 'output.mp4');
    const resampler = new FrameResampler(createKernels(), canvas, output);
    await runFfmpeg(this.ffmpeg, {
      args: this.encodeArgs(output, job.fps, frames, outPath),
      stdin: shotFrames(resampler, path, frames),
      signal: ctx.signal,
      onFrame: (frame) => progress(PREPARE_SHARE + (1 - PREPARE_SHARE) * Math.min(1, frame / frames)),
    });
    progress(1);
    return { path: outPath };
  }

  private encodeArgs(output: Size, fps: number, frames: number, outPath: string): string[] {
    return [
      '-hide_banner', '-loglevel', 'error', '-nostats', '-progress', 'pipe:1',
      '-f', 'rawvideo', '-pixel_format', 'yuv420p', '-video_size', `${output.width}x${output.height}`,
      '-framerate', String(fps), '-i', 'pipe:0',
      '-vf', 'setsar=1', '-frames:v', String(frames), '-an', '-sn', '-dn',
      '-c:v', 'libx264', '-preset', this.preset, '-threads', String(this.threads),
      '-pix_fmt', 'yuv420p', '-colorspace', 'bt709', '-color_primaries', 'bt709', '-color_trc', 'bt709',
      '-color_range', 'tv', '-map_metadata', '-1', '-movflags', '+faststart', '-f', 'mp4', '-y', outPath,
    ];
  }
}

/** The shot's frames in order, made one at a time as ffmpeg asks for them. */
function* shotFrames(resampler: FrameResampler, path: CameraPath, frames: number): Iterable<Buffer> {
  let last: { key: string; frame: Buffer } | undefined;
  for (let n = 0; n < frames; n++) {
    const view = viewAt(path, frames > 1 ? n / (frames - 1) : 0);
    const key = `${view.cx} ${view.cy} ${view.zoom}`;
    // A still camera (and the eased ends of a move) repeat a view: cut it once.
    if (last?.key !== key) last = { key, frame: resampler.frame(view) };
    yield last.frame;
  }
}

/** The frame count; refuses jobs this renderer cannot make exactly as asked. */
function checkJob(job: GenerationJob): number {
  const bad = (message: string) => new GenerationError('invalid_input', message, false);
  if (job.kind !== 'generate') throw bad(`The built-in renderer cannot ${job.kind} videos.`);
  for (const [name, v] of [['width', job.width], ['height', job.height]] as const) {
    // yuv420p halves chroma in both directions, so H.264 here needs even sides.
    if (!Number.isInteger(v) || v < 16 || v > MAX_SIDE || v % 2 !== 0) throw bad(`The ${name} must be an even number of pixels from 16 to ${MAX_SIDE}.`);
  }
  if (!(job.fps > 0 && job.fps <= 120)) throw bad('The frame rate must be above 0 and at most 120.');
  const frames = Math.round(job.duration * job.fps);
  if (!(job.duration > 0) || frames < 1 || frames > MAX_FRAMES) throw bad('The duration is out of range.');
  return frames;
}

/** Progress callers may rely on: within 0..1 and never backwards. */
function monotonic(report: (fraction: number) => void): (fraction: number) => void {
  let last = -1;
  return (fraction) => {
    const clamped = Math.min(1, Math.max(0, fraction));
    if (clamped > last) {
      last = clamped;
      report(clamped);
    }
  };
}
