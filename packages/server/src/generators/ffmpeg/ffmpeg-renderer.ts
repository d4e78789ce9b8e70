/**
 * The built-in backend: an honest procedural renderer, not a neural model. It takes one still (the
 * caller's first image, or a landscape drawn from the prompt's words), moves a virtual camera over it
 * as the prompt asks, and encodes exactly `duration * fps` frames of H.264, with a soundtrack composed
 * from the same words when the task asks for sound (sound/soundtrack.ts). It also edits videos
 * (colour, blur, timing, crop: video-edit.ts) and extends them from their last frame (video-extend.ts).
 *
 * Frames are cut from the canvas here (frame-resampler.ts) and streamed to ffmpeg as raw yuv420p,
 * just ahead of the encoder: ffmpeg only encodes, and the two run on separate cores.
 */
import { join } from 'node:path';
import type { TaskKind } from '../../domain/task.ts';
import type { ModelInputs } from '../../domain/task-inputs.ts';
import { FAILURES, TaskFailure } from '../../domain/task-failure.ts';
import {
  monotonicProgress,
  type GenerationContext,
  type GenerationJob,
  type GenerationOutput,
  type Generator,
} from '../generator.ts';
import { QUIET, rawFramesInput, x264Output, type EncoderSettings } from './encode-args.ts';
import { frameSource } from './frame-source.ts';
import type { Size } from './frame-resampler.ts';
import { RENDERER_INPUTS, renderInputs, type RenderInputs } from './render-inputs.ts';
import { renderFailed, runFfmpeg } from './run-ffmpeg.ts';
import { frameCountOf } from '../job-geometry.ts';
import { renderEdit } from './video-edit.ts';
import { renderExtension } from './video-extend.ts';
import { composeSoundtrack, samplesFor } from './sound/soundtrack.ts';
import { soundtrackArgs, writeSoundtrack } from './sound/soundtrack-file.ts';
import { referenceSoundtrack } from './sound/reference-bed.ts';
import { noTracing } from '../../observability/tracing/tracing.ts';

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
// Input videos this renderer edits or extends: what a 2-core box turns around in a minute or two.
const MAX_INPUT = { seconds: 30, longSide: 1920, shortSide: 1080 };

export class FfmpegRenderer implements Generator {
  readonly kinds: readonly TaskKind[] = ['generate', 'edit', 'extend'];
  private readonly ffmpeg: string;
  private readonly encoder: EncoderSettings;

  constructor(options: FfmpegRendererOptions) {
    this.ffmpeg = options.ffmpeg;
    this.encoder = { preset: options.preset ?? 'veryfast', threads: options.threads ?? 0 };
    if (!PRESETS.includes(this.encoder.preset)) throw new Error(`Unknown x264 preset '${this.encoder.preset}'.`);
    if (!Number.isInteger(this.encoder.threads) || this.encoder.threads < 0)
      throw new Error('threads must be a whole number >= 0.');
  }

  inputsFor(): readonly ModelInputs[] {
    return [RENDERER_INPUTS];
  }

  async generate(job: GenerationJob, ctx: GenerationContext): Promise<GenerationOutput> {
    try {
      return await this.render(job, ctx);
    } catch (err) {
      // Callers may rely on a TaskFailure; anything else is our own fault, and may pass on retry.
      if (err instanceof TaskFailure) throw err;
      throw renderFailed();
    }
  }

  private async render(job: GenerationJob, ctx: GenerationContext): Promise<GenerationOutput> {
    const frames = checkJob(job);
    const progress = monotonicProgress(ctx.onProgress);
    if (ctx.signal.aborted) throw FAILURES.canceled();
    const run = { ffmpeg: this.ffmpeg, encoder: this.encoder, progress };
    const tracing = ctx.tracing ?? noTracing;
    const spanned = { 'vidgen.render.frames': frames, 'vidgen.render.preset': this.encoder.preset };
    if (job.kind !== 'generate') {
      const made =
        job.kind === 'edit'
          ? await tracing.withSpan('ffmpeg.edit', { attributes: spanned }, () => renderEdit(job, ctx, run))
          : await tracing.withSpan('ffmpeg.extend', { attributes: spanned }, () => renderExtension(job, ctx, run));
      progress(1);
      return made;
    }
    const output: Size = { width: job.width, height: job.height };
    const inputs = renderInputs(job);
    const source = await frameSource(job, inputs, output, frames);
    if (ctx.signal.aborted) throw FAILURES.canceled();
    progress(PREPARE_SHARE);
    const outPath = join(ctx.workDir, 'output.mp4');
    const soundtrack = job.audio
      ? await writeSoundtrack(ctx.workDir, await this.soundtrack(job, inputs, samplesFor(frames / job.fps), ctx))
      : undefined;
    const sound = soundtrackArgs(soundtrack, 1);
    const attributes = {
      ...spanned,
      'vidgen.render.text_to_video': source.textToVideo,
      'vidgen.render.anchored': source.anchored,
      'vidgen.render.sound': !!soundtrack,
    };
    // The encode: frames cut here and piped to ffmpeg, the render's bulk (the still drawn above is its parent's).
    await tracing.withSpan('ffmpeg.render', { attributes }, () =>
      runFfmpeg(this.ffmpeg, {
        args: [
          ...QUIET,
          ...rawFramesInput(output, String(job.fps)),
          ...sound.input,
          '-map',
          '0:v:0',
          ...sound.map,
          '-vf',
          'setsar=1',
          // A frame limit would end the sound with the picture's last packet, short of its own end
          // (by 0.8 s of 3 s, measured): stdin holds exactly `frames` frames anyway.
          ...(soundtrack ? [] : ['-frames:v', String(frames)]),
          ...x264Output(this.encoder, outPath, soundtrack !== undefined),
        ],
        stdin: source.frames,
        signal: ctx.signal,
        onFrame: (frame) => progress(PREPARE_SHARE + (1 - PREPARE_SHARE) * Math.min(1, frame / frames)),
      }),
    );
    progress(1);
    return { path: outPath };
  }

  /** The prompt's soundtrack, or one on a bed of the reference audio (sound/reference-bed.ts). */
  private soundtrack(job: GenerationJob, inputs: RenderInputs, samples: number, ctx: GenerationContext) {
    if (inputs.referenceAudios.length === 0) return composeSoundtrack(job.prompt, job.seed, samples);
    return referenceSoundtrack(this.ffmpeg, inputs.referenceAudios, job.prompt, job.seed, samples, ctx.signal);
  }
}

/** The frame count; refuses jobs this renderer cannot make exactly as asked. */
function checkJob(job: GenerationJob): number {
  const frames = frameCountOf(job);
  if (job.kind !== 'generate') checkInputVideo(job);
  return frames;
}

function checkInputVideo(job: GenerationJob): void {
  const video = job.video;
  if (!video) throw FAILURES.invalidInput(`An ${job.kind === 'edit' ? 'edit' : 'extension'} needs an input video.`);
  const long = Math.max(video.width, video.height);
  const short = Math.min(video.width, video.height);
  if (video.durationSeconds > MAX_INPUT.seconds || long > MAX_INPUT.longSide || short > MAX_INPUT.shortSide) {
    throw FAILURES.videoUnsupported(
      `The built-in renderer edits and extends videos of up to ${MAX_INPUT.seconds} s and 1080p ` +
        `(${MAX_INPUT.longSide}x${MAX_INPUT.shortSide}); ` +
        `this one is ${video.width}x${video.height}, ${video.durationSeconds.toFixed(1)} s.`,
    );
  }
}
