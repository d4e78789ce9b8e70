/**
 * One function per kind of sound a scene can have. Each adds its layer into the stereo mix at a
 * rough level of its own (the whole track is loudness-normalised afterwards, soundtrack.ts), from
 * a seeded random source, so the same prompt and seed give the same samples.
 *
 * The recipes are the classic ones of procedural sound design: filtered noise for air and water,
 * amplitude envelopes for swells and gusts, Poisson-timed grains for drops, crackles, chirps and
 * passing cars, and a few detuned sine voices for music.
 */
import { MULBERRY_STEP, mulberryOutput, type Random } from '../seeded-random.ts';
import { music } from './music-bed.ts';
import {
  addGrain,
  addLowPink,
  brownNoise,
  highPass,
  lowPass,
  mixInto,
  onePole,
  panGains,
  pinkNoise,
  SAMPLE_RATE,
  seedOf,
  sineOf,
  slowCurve,
  sweptBandPass,
  whiteNoise,
  type Stereo,
} from './dsp.ts';

export type SoundKind = 'rain' | 'wind' | 'surf' | 'fire' | 'birds' | 'insects' | 'traffic' | 'music';

export type Layer = (mix: Stereo, rnd: Random, gain: number) => void;

const lengthOf = (mix: Stereo) => mix.left.length;

/** Steady hiss of drops on leaves and roofs, plus single nearby drops. */
function rain(mix: Stereo, rnd: Random, gain: number): void {
  const n = lengthOf(mix);
  const density = slowCurve(n, 2.5, seedOf(rnd));
  for (let i = 0; i < n; i++) density[i] = 0.75 + 0.25 * density[i];
  for (const pan of [-0.7, 0.7]) {
    const hiss = lowPass(highPass(highPass(whiteNoise(n, seedOf(rnd)), 1000), 700), 7000, 2);
    mixInto(mix, hiss, density, pan, gain * 0.5);
  }
  // Drops: a few hundred a second, each a few milliseconds of bright noise.
  const drops = Math.round((n / SAMPLE_RATE) * rnd.range(120, 220));
  for (let d = 0; d < drops; d++) {
    const pitch = rnd.range(2500, 6000);
    const phase = rnd.next();
    addGrain(
      mix,
      rnd.int(0, n),
      rnd.int(96, 360),
      gain * rnd.range(0.02, 0.12),
      rnd.range(-1, 1),
      (t) => sineOf(phase + pitch * t) * Math.exp(-t * 900),
    );
  }
}

/** Air moving: band-passed pink noise whose centre and level wander in gusts. */
function wind(mix: Stereo, rnd: Random, gain: number): void {
  const n = lengthOf(mix);
  for (const pan of [-0.6, 0.6]) {
    const gust = slowCurve(n, rnd.range(1.2, 2.4), seedOf(rnd));
    const low = rnd.range(180, 320);
    const span = rnd.range(350, 700);
    const air = sweptBandPass(pinkNoise(n, seedOf(rnd)), (i) => low + span * gust[i], 2.2);
    mixInto(
      mix,
      air,
      gust.map((g) => gain * 1.6 * (0.25 + 0.75 * g * g)),
      pan,
    );
  }
}

/**
 * Waves: each one a swell of low noise that rises for a second or two, breaks, and hisses out
 * as foam over several seconds; the next arrives 5 to 9 s later, slightly elsewhere in the stereo.
 */
function surf(mix: Stereo, rnd: Random, gain: number): void {
  const n = lengthOf(mix);
  const seconds = n / SAMPLE_RATE;
  const envelope = new Float32Array(n);
  const foam = new Float32Array(n);
  // A wave already breaking when the clip starts, so the first second is not empty.
  for (let at = -rnd.range(1, 4); at < seconds; at += rnd.range(5, 9)) {
    const rise = rnd.range(1.2, 2.2);
    const fall = rnd.range(3, 5);
    const height = rnd.range(0.7, 1);
    addWave(envelope, foam, at, rise, fall, height);
  }
  for (const pan of [-0.5, 0.5]) {
    const bodySeed = seedOf(rnd);
    surfChannel(mix, envelope, foam, pan, gain, bodySeed, seedOf(rnd));
  }
}

/**
 * One side of the surf, added into `mix` in a single pass: the body (brown noise low-passed at
 * 900 Hz, under the swell floored at 0.12) and the foam hiss (white noise high-passed at 1500 Hz and
 * low-passed at 6000 Hz, under the foam curve). The same filters as brownNoise, highPass and lowPass,
 * run sample by sample: no track-long noise arrays to fill, filter, mix and collect, and one loop
 * for V8 to optimise instead of nine.
 */
function surfChannel(
  mix: Stereo,
  envelope: Float32Array,
  foam: Float32Array,
  pan: number,
  gain: number,
  bodySeed: number,
  hissSeed: number,
): void {
  const { left, right } = mix;
  const body = panGains(pan, gain * 1.6);
  const hiss = panGains(pan * 1.4, gain * 0.25);
  const [bodyPole, highPole, lowPole] = [onePole(900), onePole(1500), onePole(6000)];
  let [bodyState, hissState] = [bodySeed | 0, hissSeed | 0];
  let brown = 0;
  let bodyLow = 0;
  let hissHigh = 0;
  let hissLow = 0;
  for (let i = 0; i < left.length; i++) {
    bodyState = (bodyState + MULBERRY_STEP) | 0;
    brown = 0.995 * brown + 0.06 * (mulberryOutput(bodyState) * 2 - 1);
    bodyLow = brown + bodyPole * (bodyLow - brown);
    hissState = (hissState + MULBERRY_STEP) | 0;
    const white = mulberryOutput(hissState) * 2 - 1;
    hissHigh = white + highPole * (hissHigh - white);
    const bright = white - hissHigh;
    hissLow = bright + lowPole * (hissLow - bright);
    const b = bodyLow * (0.12 + envelope[i]);
    const f = hissLow * foam[i];
    left[i] += b * body.left + f * hiss.left;
    right[i] += b * body.right + f * hiss.right;
  }
}

/**
 * One wave into the surf's envelope (its swell) and foam (its hiss), from `at` seconds: a function of
 * its own so V8 optimises it at once (a loop run once a soundtrack stayed unoptimised for renders).
 */
function addWave(envelope: Float32Array, foam: Float32Array, at: number, rise: number, fall: number, height: number) {
  const n = envelope.length;
  // Past the break both decays are exponentials: one multiplication a sample, not two Math.exp.
  const [swellStep, foamStep] = [Math.exp(-1 / (fall * SAMPLE_RATE)), Math.exp(-1 / (fall * 0.5 * SAMPLE_RATE))];
  let swell = -1;
  let spray = 0;
  for (let i = Math.max(0, Math.floor(at * SAMPLE_RATE)); i < n; i++) {
    const t = i / SAMPLE_RATE - at;
    if (t > rise + fall * 2.5) break;
    if (t < rise) {
      // Squared by a multiplication: `**` is a Math.pow call per sample.
      const u = t / rise;
      envelope[i] = Math.max(envelope[i], height * u * u);
      continue;
    }
    if (swell < 0) {
      swell = Math.exp(-(t - rise) / fall);
      spray = Math.exp(-(t - rise) / (fall * 0.5));
    } else {
      swell *= swellStep;
      spray *= foamStep;
    }
    envelope[i] = Math.max(envelope[i], height * swell);
    foam[i] = Math.max(foam[i], height * spray);
  }
}

/** A fire: a low flickering roar, sharp crackles at random and the odd deeper pop. */
function fire(mix: Stereo, rnd: Random, gain: number): void {
  const n = lengthOf(mix);
  const flicker = slowCurve(n, 0.35, seedOf(rnd));
  const roar = lowPass(brownNoise(n, seedOf(rnd)), 220);
  mixInto(
    mix,
    roar,
    flicker.map((f) => gain * 1.4 * (0.6 + 0.4 * f)),
    0,
  );
  const crackles = Math.round((n / SAMPLE_RATE) * rnd.range(25, 45));
  const noise = whiteNoise(4096, seedOf(rnd));
  for (let c = 0; c < crackles; c++) {
    const offset = rnd.int(0, 3000);
    // Loudness of crackles is heavy-tailed: many ticks, a few snaps.
    const level = gain * 1.6 * rnd.next() ** 3;
    const decay = rnd.range(600, 1800);
    addGrain(
      mix,
      rnd.int(0, n),
      rnd.int(120, 600),
      level,
      rnd.range(-0.8, 0.8),
      (t) => noise[offset + Math.floor(t * SAMPLE_RATE)] * Math.exp(-t * decay),
    );
  }
  const pops = Math.round((n / SAMPLE_RATE) * rnd.range(0.6, 1.5));
  for (let p = 0; p < pops; p++) {
    const pitch = rnd.range(90, 180);
    addGrain(
      mix,
      rnd.int(0, n),
      rnd.int(1500, 3500),
      gain * 0.35,
      rnd.range(-0.5, 0.5),
      (t) => sineOf(pitch * t) * Math.exp(-t * 60),
    );
  }
}

/** Birdsong: phrases of short sweeping whistles, a few birds in different places. */
function birds(mix: Stereo, rnd: Random, gain: number): void {
  const n = lengthOf(mix);
  const seconds = n / SAMPLE_RATE;
  const voices = rnd.int(2, 4);
  for (let v = 0; v < voices; v++) {
    const pan = rnd.range(-0.9, 0.9);
    const base = rnd.range(2200, 4200);
    const sweep = rnd.range(-0.5, 0.8);
    const syllable = rnd.range(0.05, 0.12);
    for (let at = rnd.range(0, 2); at < seconds; at += rnd.range(1.5, 4)) {
      const notes = rnd.int(3, 7);
      for (let k = 0; k < notes; k++) {
        const start = Math.floor((at + k * syllable * 1.6) * SAMPLE_RATE);
        const f0 = base * rnd.range(0.85, 1.2);
        const len = Math.floor(syllable * rnd.range(0.7, 1.2) * SAMPLE_RATE);
        const trill = rnd.range(20, 45);
        addGrain(mix, start, len, gain * rnd.range(0.15, 0.3), pan, (t) => {
          const f = f0 * (1 + (sweep * t) / syllable) + 180 * sineOf(trill * t);
          return sineOf(f * t);
        });
      }
    }
  }
  wind(mix, rnd, gain * 0.25);
}

/** Crickets at night: each a high tone pulsed in short chirps, at its own rate and place. */
function insects(mix: Stereo, rnd: Random, gain: number): void {
  const n = lengthOf(mix);
  const seconds = n / SAMPLE_RATE;
  const crickets = rnd.int(3, 5);
  for (let c = 0; c < crickets; c++) {
    const pitch = rnd.range(3800, 5200);
    const pan = rnd.range(-0.9, 0.9);
    const period = rnd.range(0.35, 0.7);
    const pulses = rnd.int(2, 4);
    const level = gain * rnd.range(0.05, 0.12);
    for (let at = rnd.range(0, period); at < seconds; at += period * rnd.range(0.95, 1.05)) {
      for (let p = 0; p < pulses; p++) {
        const start = Math.floor((at + p * 0.032) * SAMPLE_RATE);
        addGrain(mix, start, Math.floor(0.018 * SAMPLE_RATE), level, pan, (t) => sineOf(pitch * t));
      }
    }
  }
  // The night air under them.
  addLowPink(mix, seedOf(rnd), 600, gain * 0.35);
}

/** A street: a low rumble of distant traffic and cars passing from one side to the other. */
function traffic(mix: Stereo, rnd: Random, gain: number): void {
  const n = lengthOf(mix);
  const seconds = n / SAMPLE_RATE;
  const swell = slowCurve(n, 1.8, seedOf(rnd));
  mixInto(
    mix,
    lowPass(brownNoise(n, seedOf(rnd)), 300),
    swell.map((s) => gain * 1.4 * (0.7 + 0.3 * s)),
    0,
  );
  const car = lowPass(highPass(pinkNoise(n, seedOf(rnd)), 120), 1400, 2);
  for (let at = rnd.range(-1, 1); at < seconds + 1; at += rnd.range(0.9, 2.6)) {
    const width = rnd.range(0.5, 1.1);
    const way = rnd.next() < 0.5 ? -1 : 1;
    const level = gain * rnd.range(1.5, 3);
    const from = Math.max(0, Math.floor((at - width * 3) * SAMPLE_RATE));
    const to = Math.min(n, Math.floor((at + width * 3) * SAMPLE_RATE));
    for (let i = from; i < to; i++) {
      const x = (i / SAMPLE_RATE - at) / width;
      // The classic pass-by: level peaks as the car is nearest, and it moves across the image.
      const near = level / (1 + x * x * 4);
      const pan = Math.max(-1, Math.min(1, way * x * 0.6));
      const s = car[i] * near;
      mix.left[i] += s * (1 - pan) * 0.7;
      mix.right[i] += s * (1 + pan) * 0.7;
    }
  }
}

export const LAYERS: Record<SoundKind, Layer> = { rain, wind, surf, fire, birds, insects, traffic, music };
