/**
 * The few signal-processing pieces the soundtrack is built from, on plain Float32Arrays at one
 * sample rate. Everything is seeded (no Math.random), so a prompt and seed give the same samples
 * on every machine; everything is a single pass over the buffer, so a 5 s stereo track costs a few
 * milliseconds per layer (bench/sound.bench.ts measures the whole soundtrack against the render).
 */
import { MULBERRY_STEP, mulberry32, mulberryOutput, type Random } from '../seeded-random.ts';

export const SAMPLE_RATE = 48_000;

/** A seed for one noise source or curve, drawn from a layer's random stream. */
export const seedOf = (rnd: Random) => rnd.int(1, 0x7fffffff);

/** A stereo buffer being mixed. */
export interface Stereo {
  left: Float32Array;
  right: Float32Array;
}

/** White noise in [-1, 1), from a 32-bit seed. */
export function whiteNoise(length: number, seed: number): Float32Array {
  let state = seed | 0;
  const out = new Float32Array(length);
  for (let i = 0; i < length; i++) {
    state = (state + MULBERRY_STEP) | 0;
    out[i] = mulberryOutput(state) * 2 - 1;
  }
  return out;
}

/** The coefficient of lowPass and highPass at `hz`, for loops that filter sample by sample. */
export const onePole = (hz: number) => Math.exp((-2 * Math.PI * hz) / SAMPLE_RATE);

/** Left and right gains of an equal-power pan (-1 left … 1 right), times `gain`. */
export function panGains(pan: number, gain = 1): { left: number; right: number } {
  const angle = ((Math.max(-1, Math.min(1, pan)) + 1) * Math.PI) / 4;
  return { left: Math.cos(angle) * Math.SQRT2 * gain, right: Math.sin(angle) * Math.SQRT2 * gain };
}

/** Pink noise (-3 dB per octave), Paul Kellet's economy filter over white noise; about unit RMS/4. */
export function pinkNoise(length: number, seed: number): Float32Array {
  const white = whiteNoise(length, seed);
  let b0 = 0;
  let b1 = 0;
  let b2 = 0;
  for (let i = 0; i < length; i++) {
    const w = white[i];
    b0 = 0.99765 * b0 + w * 0.099046;
    b1 = 0.963 * b1 + w * 0.2965164;
    b2 = 0.57 * b2 + w * 1.0526913;
    white[i] = (b0 + b1 + b2 + w * 0.1848) * 0.25;
  }
  return white;
}

/**
 * Pink noise low-passed at `hz`, added into `mix` in the centre at `gain`: the same samples as
 * mixInto(mix, lowPass(pinkNoise(n, seed), hz), gain), in one pass with no track-long array.
 */
export function addLowPink(mix: Stereo, seed: number, hz: number, gain: number): void {
  const { left, right } = mix;
  const a = onePole(hz);
  // Centre pan: cos(π/4)·√2 = 1 on each side.
  let state = seed | 0;
  let b0 = 0;
  let b1 = 0;
  let b2 = 0;
  let y = 0;
  for (let i = 0; i < left.length; i++) {
    state = (state + MULBERRY_STEP) | 0;
    const w = mulberryOutput(state) * 2 - 1;
    b0 = 0.99765 * b0 + w * 0.099046;
    b1 = 0.963 * b1 + w * 0.2965164;
    b2 = 0.57 * b2 + w * 1.0526913;
    const pink = (b0 + b1 + b2 + w * 0.1848) * 0.25;
    y = pink + a * (y - pink);
    left[i] += y * gain;
    right[i] += y * gain;
  }
}

/** Brown noise (-6 dB per octave): leaky integrated white noise, a deep rumble. */
export function brownNoise(length: number, seed: number): Float32Array {
  const white = whiteNoise(length, seed);
  let acc = 0;
  for (let i = 0; i < length; i++) {
    acc = 0.995 * acc + 0.06 * white[i];
    white[i] = acc;
  }
  return white;
}

/** One-pole low-pass at `hz`, in place; applied twice it falls at 12 dB per octave. */
export function lowPass(buf: Float32Array, hz: number, passes = 1): Float32Array {
  const a = onePole(hz);
  for (let p = 0; p < passes; p++) {
    let y = 0;
    for (let i = 0; i < buf.length; i++) {
      y = buf[i] + a * (y - buf[i]);
      buf[i] = y;
    }
  }
  return buf;
}

/** One-pole high-pass at `hz`, in place (the input minus its low-passed self). */
export function highPass(buf: Float32Array, hz: number): Float32Array {
  const a = onePole(hz);
  let y = 0;
  for (let i = 0; i < buf.length; i++) {
    y = buf[i] + a * (y - buf[i]);
    buf[i] -= y;
  }
  return buf;
}

/**
 * A state-variable band-pass whose centre follows `centreHz(i)` sample by sample (wind whistles as
 * its centre wanders); `q` sets the width. Chamberlin's form: stable below a sixth of the rate.
 */
export function sweptBandPass(buf: Float32Array, centreHz: (i: number) => number, q: number): Float32Array {
  let low = 0;
  let band = 0;
  const damp = 1 / q;
  let f = 0;
  for (let i = 0; i < buf.length; i++) {
    // The coefficient moves slowly: computing it every 32 samples is inaudible and 30 times cheaper.
    if ((i & 31) === 0) f = 2 * Math.sin((Math.PI * Math.min(centreHz(i), SAMPLE_RATE / 7)) / SAMPLE_RATE);
    low += f * band;
    const high = buf[i] - low - damp * band;
    band += f * high;
    buf[i] = band;
  }
  return buf;
}

/**
 * A slow random curve in [0, 1]: smoothed noise with knots every `periodSeconds`, eased between
 * (cosine), for gusts, swells and the density of rain. Deterministic from `seed`.
 */
export function slowCurve(length: number, periodSeconds: number, seed: number): Float32Array {
  const next = mulberry32(seed);
  const step = Math.max(1, Math.round(periodSeconds * SAMPLE_RATE));
  const knots = Array.from({ length: Math.ceil(length / step) + 2 }, () => next());
  const out = new Float32Array(length);
  for (let i = 0; i < length; i++) {
    const k = Math.floor(i / step);
    const t = (i - k * step) / step;
    const w = (1 - Math.cos(Math.PI * t)) / 2;
    out[i] = knots[k] * (1 - w) + knots[k + 1] * w;
  }
  return out;
}

/**
 * `source` × `gain` (a number, or a curve times `scale`) added into `into`, panned (-1 left … 1
 * right, equal power). A scaled curve instead of a scaled copy of it: no track-long array per call.
 */
export function mixInto(into: Stereo, source: Float32Array, gain: number | Float32Array, pan = 0, scale = 1): void {
  const { left: gl, right: gr } = panGains(pan);
  const n = Math.min(into.left.length, source.length);
  if (typeof gain === 'number') {
    for (let i = 0; i < n; i++) {
      into.left[i] += source[i] * gain * gl;
      into.right[i] += source[i] * gain * gr;
    }
    return;
  }
  const [sl, sr] = [gl * scale, gr * scale];
  for (let i = 0; i < n; i++) {
    const s = source[i] * gain[i];
    into.left[i] += s * sl;
    into.right[i] += s * sr;
  }
}

/** A sine table for cheap oscillators: one lookup and one interpolation per sample instead of Math.sin. */
const TABLE_SIZE = 4096;
const SINE = Float32Array.from({ length: TABLE_SIZE + 1 }, (_, i) => Math.sin((2 * Math.PI * i) / TABLE_SIZE));

/** sin(2π·phase) for a phase in turns (any real number). */
export function sineOf(phase: number): number {
  const x = (phase - Math.floor(phase)) * TABLE_SIZE;
  const i = x | 0;
  return SINE[i] + (SINE[i + 1] - SINE[i]) * (x - i);
}

/**
 * Adds a short sound event at sample `start`: `length` samples of `voice(t)` (t in seconds from its
 * start) under a Hann window, so it begins and ends at zero and never clicks.
 */
export function addGrain(
  into: Stereo,
  start: number,
  length: number,
  gain: number,
  pan: number,
  voice: (t: number) => number,
): void {
  const { left: gl, right: gr } = panGains(pan, gain);
  const end = Math.min(into.left.length, start + length);
  for (let i = Math.max(0, start); i < end; i++) {
    const k = i - start;
    const w = 0.5 - 0.5 * sineOf(k / length + 0.25);
    const s = voice(k / SAMPLE_RATE) * w;
    into.left[i] += s * gl;
    into.right[i] += s * gr;
  }
}
