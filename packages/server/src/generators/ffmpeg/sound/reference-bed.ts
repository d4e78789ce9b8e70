/**
 * A soundtrack on a bed of the caller's reference audio: the references in their order, each
 * crossfaded into the next, looped (crossfaded again at each repeat) or cut to the video's length.
 * The sounds the prompt names (rain, birds, traffic…; sound-scene.ts) play over it, LAYERS_UNDER_BED
 * quieter; the music bed a prompt gets when it names nothing is not added, since the reference is
 * the bed. The whole is normalised to TARGET_LUFS like every soundtrack and faded in and out.
 */
import { FAILURES } from '../../../domain/task-failure.ts';
import { seededRandom } from '../seeded-random.ts';
import { decodeWholeAudio } from './decode-audio.ts';
import { SAMPLE_RATE, type Stereo } from './dsp.ts';
import { LAYERS } from './sound-layers.ts';
import { soundScene } from './sound-scene.ts';
import { TARGET_LUFS, fade, normalise } from './soundtrack.ts';

/** Loudness of the prompt's own sounds under the bed, in LU. */
export const LAYERS_UNDER_BED = 10;
/** Crossfade between two references and at each repeat (shorter for very short references). */
export const BED_SEAM_SECONDS = 0.25;

export async function referenceSoundtrack(
  ffmpeg: string,
  paths: string[],
  prompt: string,
  seed: number | undefined,
  samples: number,
  signal: AbortSignal,
): Promise<Stereo> {
  const sources: Stereo[] = [];
  for (const path of paths) {
    const audio = await decodeWholeAudio(ffmpeg, path, signal, () =>
      FAILURES.invalidInput('A reference audio could not be decoded.'),
    );
    if (audio.left.length < SAMPLE_RATE / 10) throw FAILURES.invalidInput('A reference audio is shorter than 0.1 s.');
    sources.push(audio);
  }
  const bed = loopedTo(sources.reduce(crossfaded), samples);
  normalise(bed, TARGET_LUFS);
  const layers: Stereo = { left: new Float32Array(samples), right: new Float32Array(samples) };
  const rnd = seededRandom(`sound\u0000${prompt}`, seed ?? 0);
  const named = soundScene(prompt).filter((part) => part.kind !== 'music');
  for (const part of named) LAYERS[part.kind](layers, rnd, part.gain);
  if (named.length > 0) {
    normalise(layers, TARGET_LUFS - LAYERS_UNDER_BED);
    for (let i = 0; i < samples; i++) {
      bed.left[i] += layers.left[i];
      bed.right[i] += layers.right[i];
    }
  }
  normalise(bed, TARGET_LUFS);
  fade(bed, 'in');
  fade(bed, 'out');
  return bed;
}

/** The samples an equal-power crossfade from `a` into `b` spans. */
export function seamOf(a: number, b: number): number {
  return Math.min(Math.round(BED_SEAM_SECONDS * SAMPLE_RATE), Math.floor(a / 4), Math.floor(b / 4));
}

/** `a` then `b`, overlapping by their seam with an equal-power crossfade. */
export function crossfaded(a: Stereo, b: Stereo): Stereo {
  const overlap = seamOf(a.left.length, b.left.length);
  const length = a.left.length + b.left.length - overlap;
  const out: Stereo = { left: new Float32Array(length), right: new Float32Array(length) };
  const start = a.left.length - overlap;
  for (const side of ['left', 'right'] as const) {
    out[side].set(a[side]);
    for (let k = 0; k < overlap; k++) {
      const angle = ((k + 0.5) / overlap) * (Math.PI / 2);
      out[side][start + k] = a[side][start + k] * Math.cos(angle) + b[side][k] * Math.sin(angle);
    }
    out[side].set(b[side].subarray(overlap), start + overlap);
  }
  return out;
}

/** `source` repeated (each repeat crossfaded in, as `crossfaded` does) until it is `samples` long, then cut there. */
export function loopedTo(source: Stereo, samples: number): Stereo {
  const length = source.left.length;
  const overlap = seamOf(length, length);
  const out: Stereo = { left: new Float32Array(samples), right: new Float32Array(samples) };
  for (const side of ['left', 'right'] as const) {
    const from = source[side];
    const into = out[side];
    into.set(from.subarray(0, Math.min(length, samples)));
    for (let start = length - overlap; start < samples; start += length - overlap) {
      for (let k = 0; k < overlap && start + k < samples; k++) {
        const angle = ((k + 0.5) / overlap) * (Math.PI / 2);
        into[start + k] = into[start + k] * Math.cos(angle) + from[k] * Math.sin(angle);
      }
      if (start + overlap < samples) into.set(from.subarray(overlap, samples - start), start + overlap);
    }
  }
  return out;
}
