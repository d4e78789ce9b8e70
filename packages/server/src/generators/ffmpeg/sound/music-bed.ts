/**
 * The music bed for prompts that name nothing audible: a slow two-chord drone of detuned sines in a
 * seeded key, each voice swelling on a slow LFO, the chords handing over along a clipped cosine.
 */
import type { Random } from '../seeded-random.ts';
import { addLowPink, SAMPLE_RATE, seedOf, sineOf, type Stereo } from './dsp.ts';

/** A low music bed for abstract scenes: a slow two-chord drone of detuned sines in a seeded key. */
export function music(mix: Stereo, rnd: Random, gain: number): void {
  const n = mix.left.length;
  const root = 55 * 2 ** (rnd.int(0, 11) / 12) * 2;
  const minor = rnd.next() < 0.5;
  const chords = [[0, minor ? 3 : 4, 7, 12], minor ? [-4, 0, 3, 8] : [5, 9, 12, 17]];
  const chordSeconds = rnd.range(3, 5);
  const fade = 1.5;
  // How much of the first chord sounds: alternating every chordSeconds along a clipped cosine,
  // so the hand-over is a smooth crossfade of about `fade` seconds, never a jump.
  const first = chordBalance(n, chordSeconds, fade);
  const lfo = rnd.range(0.08, 0.2);
  const audible = [audibleRuns(first, true), audibleRuns(first, false)];
  for (let c = 0; c < chords.length; c++) {
    for (const [v, semitones] of chords[c].entries()) {
      const f = root * 2 ** (semitones / 12);
      // The right channel a few cents off the left: a slow, wide chorus.
      const detune = rnd.range(0.15, 0.6);
      const level = gain * (v === 0 ? 0.5 : 0.3);
      const l = phasor(f, rnd.next());
      const r = phasor(f + detune, rnd.next());
      const swell = phasor(lfo, rnd.next());
      for (const [from, to] of audible[c]) musicVoice(mix, first, c === 0, level, { l, r, swell }, from, to);
    }
  }
  addLowPink(mix, seedOf(rnd), 1200, gain * 0.15);
}

/** The first chord's share of the music bed, sample by sample (a function: see musicVoice). */
function chordBalance(n: number, chordSeconds: number, fade: number): Float32Array {
  const first = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const x = sineOf(i / SAMPLE_RATE / (2 * chordSeconds) + 0.25) * (chordSeconds / fade);
    first[i] = Math.max(0, Math.min(1, 0.5 + x));
  }
  return first;
}

/**
 * The runs of samples [from, to) in which a chord sounds (its share above zero). Elsewhere its
 * voices would add exactly zero, so they are not computed: with chords of 3–5 s, each is silent for
 * about a third of a 5 s track.
 */
function audibleRuns(first: Float32Array, firstChord: boolean): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  let from = -1;
  for (let i = 0; i < first.length; i++) {
    const sounds = firstChord ? first[i] > 0 : first[i] < 1;
    if (sounds && from < 0) from = i;
    if (!sounds && from >= 0) {
      runs.push([from, i]);
      from = -1;
    }
  }
  if (from >= 0) runs.push([from, first.length]);
  return runs;
}

type Phasor = ReturnType<typeof phasor>;

/**
 * One voice of the music bed, added into `mix`: a function of its own, called eight times a
 * soundtrack, so V8 optimises it within the first soundtrack. As a loop inside `music`, called once
 * a soundtrack, it ran unoptimised for the first few renders of a process (160, 89, then 20 ms).
 */
function musicVoice(
  mix: Stereo,
  first: Float32Array,
  firstChord: boolean,
  level: number,
  oscillators: { l: Phasor; r: Phasor; swell: Phasor },
  from: number,
  to: number,
): void {
  const { l, r, swell } = oscillators;
  // The oscillators' state in plain locals (this loop runs for every voice and sample), started
  // where they would be after `from` samples.
  let [ls, lc] = [Math.sin(l.start + from * l.w), Math.cos(l.start + from * l.w)];
  let [rs, rc] = [Math.sin(r.start + from * r.w), Math.cos(r.start + from * r.w)];
  let [ss, sc] = [Math.sin(swell.start + from * swell.w), Math.cos(swell.start + from * swell.w)];
  const firstWeight = firstChord ? 1 : -1;
  const firstOffset = firstChord ? 0 : 1;
  for (let i = from; i < to; i++) {
    const ls1 = ls * l.cw + lc * l.sw;
    lc = lc * l.cw - ls * l.sw;
    ls = ls1;
    const rs1 = rs * r.cw + rc * r.sw;
    rc = rc * r.cw - rs * r.sw;
    rs = rs1;
    const ss1 = ss * swell.cw + sc * swell.sw;
    sc = sc * swell.cw - ss * swell.sw;
    ss = ss1;
    if ((i & 4095) === 4095) {
      // Renormalised now and then, so rounding never lets an amplitude drift.
      const kl = 1 / Math.hypot(ls, lc);
      const kr = 1 / Math.hypot(rs, rc);
      const ks = 1 / Math.hypot(ss, sc);
      ls *= kl;
      lc *= kl;
      rs *= kr;
      rc *= kr;
      ss *= ks;
      sc *= ks;
    }
    const a = (firstOffset + firstWeight * first[i]) * level * (0.75 + 0.25 * ss);
    // Fundamental and octave (sin 2x = 2 sin x cos x): two harmonics from one oscillator.
    mix.left[i] += a * ls * (1 + 0.6 * lc);
    mix.right[i] += a * rs * (1 + 0.6 * rc);
  }
}

/** A sine oscillator as a rotating phasor: its start and the rotation of one sample (no table, no Math.sin). */
function phasor(hz: number, phase: number) {
  const w = (2 * Math.PI * hz) / SAMPLE_RATE;
  return { start: 2 * Math.PI * phase, w, cw: Math.cos(w), sw: Math.sin(w) };
}
