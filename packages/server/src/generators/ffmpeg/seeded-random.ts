/**
 * Deterministic randomness for the procedural renderer: the same prompt and seed must draw the same
 * scene on every machine and every run, so nothing here may touch Math.random or the clock.
 */

/** 32-bit FNV-1a over the UTF-16 code units of `text`: cheap, stable, and good enough to seed a PRNG. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** mulberry32: a tiny PRNG with a full 2^32 period, returning floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + MULBERRY_STEP) >>> 0;
    return mulberryOutput(state);
  };
}

/** What mulberry32 adds to its state per draw. */
export const MULBERRY_STEP = 0x6d2b79f5;

/**
 * mulberry32's output for a state already advanced by MULBERRY_STEP: a pure function, so an audio
 * loop can keep the state in a local and draw noise with no closure call per sample. Only the state's
 * 32 bits matter, so such a loop may keep it signed (`| 0`), which V8 holds as a plain integer.
 */
export function mulberryOutput(state: number): number {
  let t = Math.imul(state ^ (state >>> 15), state | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

export interface Random {
  /** Float in [0, 1). */
  next(): number;
  /** Float in [min, max). */
  range(min: number, max: number): number;
  /** Integer in [min, max]. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
}

/** A PRNG for one prompt and seed; prompts differing only in case or spacing draw the same scene. */
export function seededRandom(prompt: string, seed = 0): Random {
  const normalized = prompt.trim().toLowerCase().replace(/\s+/g, ' ');
  const next = mulberry32(fnv1a(`${normalized}\u0000${seed}`));
  const range = (min: number, max: number) => min + (max - min) * next();
  return {
    next,
    range,
    int: (min, max) => Math.floor(range(min, max + 1)),
    pick: (items) => items[Math.floor(next() * items.length)],
  };
}
