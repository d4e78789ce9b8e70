/**
 * The built-in renderer's soundtrack: the layers a prompt names (sound-scene.ts, sound-layers.ts)
 * mixed in stereo at 48 kHz, normalised to one integrated loudness (TARGET_LUFS, EBU R128 /
 * BS.1770) with a soft limit under -1 dBFS, and faded in and out over a few milliseconds so the
 * track starts and ends at zero. The same prompt and seed give the same samples; another seed
 * another take. The result is handed to ffmpeg as a WAV file and encoded as AAC in the same pass
 * as the picture (encode-args.ts).
 */
import { seededRandom } from '../seeded-random.ts';
import { SAMPLE_RATE, type Stereo } from './dsp.ts';
import { integratedLoudness } from './loudness.ts';
import { LAYERS } from './sound-layers.ts';
import { soundScene } from './sound-scene.ts';

/**
 * Integrated loudness of every soundtrack: -16 LUFS, what web and mobile players (and the AES
 * streaming recommendation) expect; broadcast's -23 is quiet beside other clips on a phone.
 */
export const TARGET_LUFS = -16;
/** Sample peak ceiling (-1 dBFS): room for the AAC encoder's overshoot. */
const CEILING = 10 ** (-1 / 20);
const FADE_SECONDS = 0.04;

export const samplesFor = (seconds: number) => Math.round(seconds * SAMPLE_RATE);

/** A finished soundtrack of `samples` samples for the prompt and seed. */
export function composeSoundtrack(prompt: string, seed: number | undefined, samples: number): Stereo {
  const mix = rawMix(prompt, seed, samples);
  normalise(mix, TARGET_LUFS);
  fade(mix, 'in');
  fade(mix, 'out');
  return mix;
}

/** The prompt's layers, mixed, at no particular level. */
export function rawMix(prompt: string, seed: number | undefined, samples: number): Stereo {
  const mix: Stereo = { left: new Float32Array(samples), right: new Float32Array(samples) };
  const rnd = seededRandom(`sound\u0000${prompt}`, seed ?? 0);
  for (const part of soundScene(prompt)) LAYERS[part.kind](mix, rnd, part.gain);
  return mix;
}

/**
 * Scales `mix` to `target` LUFS. Peaks above the knee are bent under the ceiling by a smooth curve
 * (a crackle or a breaking wave may peak far above the average); that lowers the loudness a little,
 * so the gain is measured again and corrected. When nothing was bent the scaling was linear and the
 * loudness is exactly the target: no second measurement (each is a K-weighting pass over the track).
 */
export function normalise(mix: Stereo, target: number): void {
  for (let round = 0; round < 3; round++) {
    const now = integratedLoudness(mix);
    if (!Number.isFinite(now)) return;
    const gain = 10 ** ((target - now) / 20);
    if (Math.abs(gain - 1) < 0.005) return;
    const bent = scaleUnderCeiling(mix.left, gain) + scaleUnderCeiling(mix.right, gain);
    if (bent === 0) return;
  }
}

export function scale(mix: Stereo, gain: number, from = 0, to = mix.left.length): void {
  for (let i = from; i < to; i++) {
    mix.left[i] *= gain;
    mix.right[i] *= gain;
  }
}

/**
 * Scales one channel by `gain` and bends what lands above the knee under the ceiling, in one pass;
 * returns how many samples it bent.
 */
function scaleUnderCeiling(channel: Float32Array, gain: number): number {
  const knee = CEILING * 0.7;
  const room = CEILING - knee;
  let bent = 0;
  for (let i = 0; i < channel.length; i++) {
    const x = channel[i] * gain;
    const a = Math.abs(x);
    if (a > knee) {
      channel[i] = Math.sign(x) * (knee + room * Math.tanh((a - knee) / room));
      bent++;
    } else channel[i] = x;
  }
  return bent;
}

/** A raised-cosine fade over the first or last FADE_SECONDS: the track starts and ends at zero. */
export function fade(mix: Stereo, which: 'in' | 'out', seconds = FADE_SECONDS): void {
  const n = Math.min(mix.left.length, Math.round(seconds * SAMPLE_RATE));
  for (let k = 0; k < n; k++) {
    const w = 0.5 - 0.5 * Math.cos((Math.PI * k) / n);
    const i = which === 'in' ? k : mix.left.length - 1 - k;
    mix.left[i] *= w;
    mix.right[i] *= w;
  }
}

/**
 * Stereo WAV bytes of `mix` as 32-bit IEEE float (WAVE_FORMAT_IEEE_FLOAT), what ffmpeg reads as the
 * soundtrack's input. Float, not 16-bit PCM: the AAC encoder works on floats, so 16-bit samples cost
 * rounding and clamping here and a conversion back in ffmpeg (5 ms of this process per 5 s, measured)
 * for nothing; the file is 2 MB instead of 1 MB for 5 s, written once to the work directory.
 */
export function wavBytes(mix: Stereo): Buffer {
  const n = mix.left.length;
  const data = n * 8;
  // The plain 16-byte fmt chunk with format tag 3 (IEEE float), which ffmpeg's WAV reader takes as
  // pcm_f32le: a 44-byte header keeps the samples 4-byte aligned (Node's buffers start 8-byte aligned).
  const header = 44;
  // Every byte is written below: no zero-filling 2 MB first.
  const out = Buffer.allocUnsafe(header + data);
  out.write('RIFF', 0, 'latin1');
  out.writeUInt32LE(header - 8 + data, 4);
  out.write('WAVEfmt ', 8, 'latin1');
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(3, 20);
  out.writeUInt16LE(2, 22);
  out.writeUInt32LE(SAMPLE_RATE, 24);
  out.writeUInt32LE(SAMPLE_RATE * 8, 28);
  out.writeUInt16LE(8, 32);
  out.writeUInt16LE(32, 34);
  out.write('data', 36, 'latin1');
  out.writeUInt32LE(data, 40);
  // Little-endian hosts only (x86-64 and arm64, what the image ships for), like the raw frames.
  const samples = new Float32Array(out.buffer, out.byteOffset + header, n * 2);
  const { left, right } = mix;
  for (let i = 0; i < n; i++) {
    samples[2 * i] = left[i];
    samples[2 * i + 1] = right[i];
  }
  return out;
}

/** Length of the crossfade at an extension's seam. */
export const SEAM_SECONDS = 0.25;

/**
 * An extension's soundtrack: `previous` (the input's sound, as long as its picture), then the
 * prompt's sound for the rest of `total` samples. The new sound is brought to the loudness of the
 * input's last seconds, so the level does not jump, and enters over an equal-power crossfade of
 * SEAM_SECONDS that ends at the seam, so there is no click.
 */
export function continueSoundtrack(previous: Stereo, prompt: string, seed: number | undefined, total: number): Stereo {
  const seam = previous.left.length;
  const overlap = Math.min(seam, Math.round(SEAM_SECONDS * SAMPLE_RATE));
  const next = rawMix(prompt, seed, total - seam + overlap);
  const tail = integratedLoudness(previous, Math.max(0, seam - 3 * SAMPLE_RATE));
  normalise(next, Number.isFinite(tail) ? tail : TARGET_LUFS);
  const out: Stereo = { left: new Float32Array(total), right: new Float32Array(total) };
  out.left.set(previous.left.subarray(0, seam - overlap));
  out.right.set(previous.right.subarray(0, seam - overlap));
  for (let k = 0; k < overlap; k++) {
    const angle = ((k + 0.5) / overlap) * (Math.PI / 2);
    const i = seam - overlap + k;
    out.left[i] = previous.left[i] * Math.cos(angle) + next.left[k] * Math.sin(angle);
    out.right[i] = previous.right[i] * Math.cos(angle) + next.right[k] * Math.sin(angle);
  }
  out.left.set(next.left.subarray(overlap), seam);
  out.right.set(next.right.subarray(overlap), seam);
  fade(out, 'out');
  return out;
}
