/**
 * What the sound tests measure in real files, with ffmpeg (decode, EBU R128) and a small FFT of
 * our own: integrated loudness, PCM samples, energy per octave band, the dominant frequency.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** 48 kHz stereo float samples of the first audio stream. */
export async function decodePcm(ffmpeg: string, file: string): Promise<{ left: Float32Array; right: Float32Array }> {
  const { stdout } = await run(
    ffmpeg,
    ['-v', 'error', '-i', file, '-map', '0:a:0', '-ac', '2', '-ar', '48000', '-f', 'f32le', 'pipe:1'],
    { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 },
  );
  const n = Math.floor(stdout.length / 8);
  const left = new Float32Array(n);
  const right = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    left[i] = stdout.readFloatLE(8 * i);
    right[i] = stdout.readFloatLE(8 * i + 4);
  }
  return { left, right };
}

/** In-place radix-2 FFT of (re, im), length a power of two. */
function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j], re[i]];
      [im[i], im[j]] = [im[j], im[i]];
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const angle = (-2 * Math.PI) / len;
    for (let i = 0; i < n; i += len) {
      for (let k = 0; k < len / 2; k++) {
        const wr = Math.cos(angle * k);
        const wi = Math.sin(angle * k);
        const a = i + k;
        const b = a + len / 2;
        const tr = re[b] * wr - im[b] * wi;
        const ti = re[b] * wi + im[b] * wr;
        re[b] = re[a] - tr;
        im[b] = im[a] - ti;
        re[a] += tr;
        im[a] += ti;
      }
    }
  }
}

/** Power spectrum averaged over Hann-windowed frames of `size` samples (mono sum of the channels). */
export function powerSpectrum(samples: Float32Array, size = 4096): Float64Array {
  const power = new Float64Array(size / 2);
  for (let start = 0; start + size <= samples.length; start += size) {
    const re = new Float64Array(size);
    const im = new Float64Array(size);
    for (let i = 0; i < size; i++) re[i] = samples[start + i] * (0.5 - 0.5 * Math.cos((2 * Math.PI * i) / size));
    fft(re, im);
    for (let k = 0; k < size / 2; k++) power[k] += re[k] * re[k] + im[k] * im[k];
  }
  return power;
}

/** Octave bands from 62.5 Hz to 16 kHz: each band's share of the energy, in dB. */
export const OCTAVES = [62.5, 125, 250, 500, 1000, 2000, 4000, 8000];
export function octaveBands(samples: Float32Array, rate = 48000): number[] {
  const size = 4096;
  const power = powerSpectrum(samples, size);
  const bands = OCTAVES.map((low) => {
    let sum = 0;
    for (let k = Math.ceil((low * size) / rate); k < Math.min(power.length, (2 * low * size) / rate); k++)
      sum += power[k];
    return sum;
  });
  const total = bands.reduce((a, b) => a + b, 0);
  return bands.map((b) => 10 * Math.log10(b / total + 1e-12));
}

/** The frequency with the most energy between `low` and `high` Hz. */
export function dominantHz(samples: Float32Array, low = 50, high = 8000, rate = 48000): number {
  const size = 8192;
  const power = powerSpectrum(samples, size);
  let best = 0;
  for (let k = Math.ceil((low * size) / rate); k < (high * size) / rate; k++) if (power[k] > power[best]) best = k;
  return (best * rate) / size;
}

/** Root mean square of a range of samples, in dBFS. */
export function rmsDb(samples: Float32Array, from: number, to: number): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += samples[i] * samples[i];
  return 10 * Math.log10(sum / Math.max(1, to - from) + 1e-20);
}

export const mono = (pcm: { left: Float32Array; right: Float32Array }) =>
  pcm.left.map((l, i) => (l + pcm.right[i]) / 2);
