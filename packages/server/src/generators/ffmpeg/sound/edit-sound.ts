/**
 * The sound of an edit (video-edit.ts), when the task asks for one. An input with sound keeps it,
 * treated like the picture: slow motion takes the same first 1/N and stretches it N times with
 * `atempo` (tempo changes, pitch stays), a speed-up plays the looped clip N times faster, reverse
 * plays it backwards (`areverse`), and a grade leaves it as it is. Every path ends exactly as long
 * as the picture (padded with silence or cut). An input without sound gets a soundtrack of the
 * prompt, as a generation would.
 */
import type { GenerationContext, GenerationJob } from '../../generator.ts';
import type { EditPlan } from '../edit-plan.ts';
import { parseRate } from '../../../media/video-probe.ts';
import { SAMPLE_RATE } from './dsp.ts';
import { composeSoundtrack, samplesFor } from './soundtrack.ts';
import { writeSoundtrack } from './soundtrack-file.ts';

/** What the edit's sound is made from: the input's own (with filters), or a composed track. */
export type EditSound = { kind: 'input'; filters: string[] } | { kind: 'composed'; path: string };

/** ffmpeg arguments of the sound: inputs to add, the map, and the filters of the audio stream. */
export interface EditAudio {
  input: string[];
  map: string[];
  filters: string[];
}

export async function editSound(
  job: GenerationJob,
  plan: EditPlan,
  ctx: GenerationContext,
  frames: number,
): Promise<EditSound> {
  const video = job.video!;
  const seconds = frames / (parseRate(video.frameRate) ?? job.fps);
  const samples = samplesFor(seconds);
  if (!video.hasAudio) {
    return {
      kind: 'composed',
      path: await writeSoundtrack(ctx.workDir, composeSoundtrack(job.prompt, job.seed, samples)),
    };
  }
  const exact = [
    'aresample=' + SAMPLE_RATE,
    'aformat=channel_layouts=stereo',
    `apad=whole_len=${samples}`,
    `atrim=end_sample=${samples}`,
  ];
  const timing = plan.timing;
  if (timing?.kind === 'reverse') return { kind: 'input', filters: ['areverse', ...exact] };
  if (timing?.kind === 'slow') {
    const n = timing.factor;
    return {
      kind: 'input',
      filters: [`atrim=end=${(seconds / n).toFixed(6)}`, 'asetpts=PTS-STARTPTS', ...tempo(1 / n), ...exact],
    };
  }
  // A speed-up loops the input N times (-stream_loop, which repeats its sound too): N times faster.
  if (timing?.kind === 'fast') return { kind: 'input', filters: [...tempo(timing.factor), ...exact] };
  return { kind: 'input', filters: exact };
}

/**
 * The arguments for `sound` in an encode whose input 0 is either the input video file
 * (`videoIsInput0`) or the reverse path's spilled frames; the next input is number 1.
 */
export function editAudioArgs(sound: EditSound, videoPath: string, videoIsInput0: boolean): EditAudio {
  if (sound.kind === 'composed') return { input: ['-i', sound.path], map: ['-map', '1:a:0'], filters: [] };
  if (videoIsInput0) return { input: [], map: ['-map', '0:a:0'], filters: sound.filters };
  return { input: ['-i', videoPath], map: ['-map', '1:a:0'], filters: sound.filters };
}

/** `atempo` takes 0.5 to 2 (ffmpeg 4.1): a larger change is a chain of them. */
export function tempo(ratio: number): string[] {
  const steps: string[] = [];
  let left = ratio;
  while (left > 2 + 1e-9) {
    steps.push('atempo=2');
    left /= 2;
  }
  while (left < 0.5 - 1e-9) {
    steps.push('atempo=0.5');
    left /= 0.5;
  }
  if (Math.abs(left - 1) > 1e-9) steps.push(`atempo=${Number(left.toFixed(6))}`);
  return steps;
}
