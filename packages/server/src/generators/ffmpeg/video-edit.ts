/**
 * Edits of an input video (edit-plan.ts says which), keeping its length: the output has exactly the
 * input's frame count at the input's frame rate, so the engine's rule "an edit keeps the length"
 * holds by construction. Sound follows the picture when the task asks for it (edit-sound.ts): a
 * change of timing changes its tempo, reverse reverses it, a grade keeps it; an input without sound
 * gets a soundtrack of the prompt. Without a request for sound the output has none.
 *
 * Most edits are one ffmpeg pass over the input file. Reverse needs every frame before the first
 * one can be written; ffmpeg's own `reverse` filter holds them all in memory (3 MB a frame at
 * 1080p), so instead the frames are spilled to disk as high-quality JPEGs (a tenth of that),
 * renamed into reverse order and encoded in a second pass.
 */
import { mkdir, readdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { FAILURES } from '../../domain/task-failure.ts';
import type { GenerationContext, GenerationJob, GenerationOutput } from '../generator.ts';
import { isEmptyPlan, KNOWN_EDITS, parseEdit, type EditPlan } from './edit-plan.ts';
import { pictureFilters } from './edit-filters.ts';
import { frameBytes, QUIET, rawFramesInput, TO_BT709, x264Output, type EncoderSettings } from './encode-args.ts';
import { decodeFrames } from './decode-frames.ts';
import { sceneEditParticles } from './scene-edits.ts';
import { editParticles } from './scene-particles.ts';
import { parseRate } from '../../media/video-probe.ts';
import type { Size } from './frame-resampler.ts';
import { runFfmpeg } from './run-ffmpeg.ts';
import { editAudioArgs, editSound, type EditAudio } from './sound/edit-sound.ts';

export interface EditRun {
  ffmpeg: string;
  encoder: EncoderSettings;
  progress(fraction: number): void;
}

// Share of the progress bar the spill pass of a reverse takes.
const SPILL_SHARE = 0.4;

export async function renderEdit(job: GenerationJob, ctx: GenerationContext, run: EditRun): Promise<GenerationOutput> {
  const video = job.video!;
  const plan = parseEdit(job.prompt);
  if (isEmptyPlan(plan)) {
    throw FAILURES.editNotUnderstood(`The prompt names no edit the built-in renderer knows. It can do ${KNOWN_EDITS}.`);
  }
  const size: Size = { width: job.width, height: job.height };
  const picture = pictureFilters(plan, size);
  const frames = video.frames;
  const outPath = join(ctx.workDir, 'output.mp4');
  // Odd input sides lose their last row or column: yuv420p H.264 needs even ones.
  const even =
    video.width !== size.width || video.height !== size.height ? [`crop=${size.width}:${size.height}:0:0`] : [];
  const finish = [
    ...picture.filters,
    'format=yuv420p',
    'setsar=1',
    `setpts=N/(${video.frameRate})/TB`,
    `tpad=stop_mode=clone:stop=${frames}`,
    `trim=end_frame=${frames}`,
  ];
  const start = [...even, ...TO_BT709];
  const sound = job.audio ? await editSound(job, plan, ctx, frames) : undefined;
  const kind = sceneEditParticles(plan.scene);
  const pass: EditPass = {
    run,
    ctx,
    frames,
    rate: video.frameRate,
    size: picture.size,
    outPath,
    particles: kind && editParticles(kind, job.prompt, job.seed, picture.size),
  };
  const encode = (inputArgs: string[], filters: string[], from: number, audio?: EditAudio) =>
    pass.particles
      ? encodeDrawn(pass, inputArgs, filters, from, audio)
      : encodeOnce(pass, inputArgs, filters, from, audio);
  if (plan.timing?.kind === 'reverse') {
    const pattern = await spillReversed(run, ctx, video.path, even, frames);
    // The spilled JPEGs say what they are (BT.601, full range): the same conversion reads them right.
    await encode(
      ['-framerate', video.frameRate, '-start_number', '0', '-i', pattern],
      [...TO_BT709, ...finish],
      SPILL_SHARE,
      // The frames come from the spilled JPEGs: the sound from the input file, as input 1.
      sound && editAudioArgs(sound, video.path, false),
    );
  } else {
    const timing = timingFilters(plan, frames, video.frameRate);
    // Drawn particles: the frames reach the encoder through this process, and the sound comes from
    // the input file as input 1, looped like the picture for a speed-up.
    const audio = sound && editAudioArgs(sound, video.path, !pass.particles);
    if (audio && pass.particles && sound?.kind === 'input') audio.input = [...timing.input, ...audio.input];
    await encode([...timing.input, '-i', video.path], [...start, ...timing.filters, ...finish], 0, audio);
  }
  return {
    path: outPath,
    expect: { width: picture.size.width, height: picture.size.height, durationSeconds: job.duration },
  };
}

interface EditPass {
  run: EditRun;
  ctx: GenerationContext;
  frames: number;
  rate: string;
  size: Size;
  outPath: string;
  /** Draws the edit's particles into a frame at a time in seconds (scene-edits.ts). */
  particles?: (frame: Buffer, seconds: number) => void;
}

/** Audio input, map and filter arguments of an encode. */
const audioArgs = (audio?: EditAudio) => [
  ...(audio?.map ?? []),
  ...(audio?.filters.length ? ['-af', audio.filters.join(',')] : []),
];

/** One ffmpeg pass from the input to the output, filters and all. */
function encodeOnce(p: EditPass, inputArgs: string[], filters: string[], from: number, audio?: EditAudio) {
  return runFfmpeg(p.run.ffmpeg, {
    args: [
      ...[...QUIET, ...inputArgs, ...(audio?.input ?? []), '-map', '0:v:0', ...audioArgs(audio)],
      ...['-vf', filters.join(',')],
      // With sound, a frame limit would cut the sound short at the picture's last packet: the
      // picture is cut to its frames by a filter instead.
      ...(audio ? [] : ['-frames:v', String(p.frames)]),
      ...['-r', p.rate, ...x264Output(p.run.encoder, p.outPath, audio !== undefined)],
    ],
    signal: p.ctx.signal,
    onFrame: (frame) => p.run.progress(from + (1 - from) * Math.min(1, frame / p.frames)),
  });
}

/**
 * Two processes, for an edit that draws particles: one decodes and filters the input to raw frames,
 * this process draws into each, the other encodes them (as an extension does, video-extend.ts).
 */
async function encodeDrawn(p: EditPass, inputArgs: string[], filters: string[], from: number, audio?: EditAudio) {
  const fps = parseRate(p.rate) ?? 24;
  const decoded = decodeFrames(p.run.ffmpeg, {
    args: [...inputArgs, '-map', '0:v:0', '-vf', filters.join(','), '-frames:v', String(p.frames)],
    frameBytes: frameBytes(p.size),
    signal: p.ctx.signal,
  });
  const draw = p.particles!;
  async function* drawn() {
    let n = 0;
    for await (const frame of decoded) {
      draw(frame, n++ / fps);
      yield frame;
    }
  }
  await runFfmpeg(p.run.ffmpeg, {
    args: [
      ...[...QUIET, ...rawFramesInput(p.size, p.rate), ...(audio?.input ?? []), '-map', '0:v:0', ...audioArgs(audio)],
      ...['-vf', 'setsar=1', ...x264Output(p.run.encoder, p.outPath, audio !== undefined)],
    ],
    stdin: drawn(),
    signal: p.ctx.signal,
    onFrame: (frame) => p.run.progress(from + (1 - from) * Math.min(1, frame / p.frames)),
  });
}

/** Slow motion and speed-up as filters (and input options) that keep `frames` frames. */
function timingFilters(plan: EditPlan, frames: number, rate: string): { input: string[]; filters: string[] } {
  const timing = plan.timing;
  if (timing?.kind === 'slow') {
    // The first 1/N of the clip, N times longer; `framerate` blends the in-between frames.
    const n = timing.factor;
    return {
      input: [],
      filters: [`trim=end_frame=${Math.ceil(frames / n)}`, `setpts=${n}*(PTS-STARTPTS)`, `framerate=fps=${rate}`],
    };
  }
  if (timing?.kind === 'fast') {
    // Every Nth frame, with the clip looped N times so the length stays the same.
    const n = timing.factor;
    return { input: ['-stream_loop', String(n - 1)], filters: [`select='not(mod(n\\,${n}))'`] };
  }
  return { input: [], filters: [] };
}

/** Decodes every frame to a JPEG on disk, then renames them into reverse order; returns the input pattern. */
async function spillReversed(
  run: EditRun,
  ctx: GenerationContext,
  input: string,
  even: string[],
  frames: number,
): Promise<string> {
  const dir = join(ctx.workDir, 'frames');
  await mkdir(dir);
  await runFfmpeg(run.ffmpeg, {
    // q 2 is near-transparent. A JPEG is BT.601 full range (yuvj420p): convert the matrix first,
    // in a filter of its own, then the range; one scale doing both gets the range wrong in ffmpeg 4.1.
    args: [
      ...QUIET,
      '-i',
      input,
      '-map',
      '0:v:0',
      '-vf',
      [
        ...even,
        'scale=in_color_matrix=auto:in_range=auto:out_color_matrix=bt601:out_range=tv',
        'format=yuv420p',
        'format=yuvj420p',
      ].join(','),
      '-q:v',
      '2',
      '-start_number',
      '0',
      '-f',
      'image2',
      join(dir, 'f-%06d.jpg'),
    ],
    signal: ctx.signal,
    onFrame: (frame) => run.progress(SPILL_SHARE * Math.min(1, frame / frames)),
  });
  const names = (await readdir(dir)).filter((n) => n.startsWith('f-')).sort();
  if (names.length === 0) throw FAILURES.videoInvalid('The input video has no frames.');
  for (const [i, name] of names.entries())
    await rename(join(dir, name), join(dir, `r-${String(names.length - 1 - i).padStart(6, '0')}.jpg`));
  return join(dir, 'r-%06d.jpg');
}
