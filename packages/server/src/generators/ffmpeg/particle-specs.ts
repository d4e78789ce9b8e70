/**
 * The kinds of particle the renderer draws (scene-particles.ts) and how each looks and moves: how
 * many, their colours, sizes, speeds and sway, and the band of the frame they live in.
 */
export type ParticleKind =
  | 'snow'
  | 'rain'
  | 'embers'
  | 'fireflies'
  | 'glints'
  | 'dust'
  | 'sand'
  | 'stardust'
  | 'leaves';

export interface Spec {
  count: number;
  colours: string[];
  /** Radius in pixels at 720p and zoom 1. */
  size: [number, number];
  alpha: [number, number];
  /** Canvas fractions per second. */
  vx: [number, number];
  vy: [number, number];
  /** Sideways sway, canvas fractions, and its frequency in Hz. */
  sway: number;
  /** Brightness pulses per second; 0 for steady. */
  twinkle: [number, number];
  /** Vertical band the particles live in, as fractions of the canvas: a number is the horizon. */
  band: [number | 'horizon', number];
  /** Rain falls as streaks this long (pixels at 720p). */
  streak?: number;
}

export const SPECS: Record<ParticleKind, Spec> = {
  snow: {
    count: 170,
    colours: ['#ffffff', '#eef4ff'],
    size: [1.6, 3.6],
    alpha: [0.6, 0.95],
    vx: [-0.012, 0.012],
    vy: [0.05, 0.12],
    sway: 0.006,
    twinkle: [0, 0],
    band: [0, 1],
  },
  rain: {
    count: 130,
    colours: ['#d4deea'],
    size: [1, 1.3],
    alpha: [0.25, 0.45],
    vx: [0.06, 0.09],
    vy: [0.9, 1.3],
    sway: 0,
    twinkle: [0, 0],
    band: [0, 1],
    streak: 28,
  },
  embers: {
    count: 80,
    colours: ['#ffb347', '#ff7a1f', '#ffd27a'],
    size: [1.6, 3.4],
    alpha: [0.6, 1],
    vx: [-0.01, 0.02],
    vy: [-0.1, -0.04],
    sway: 0.01,
    twinkle: [1.5, 4],
    band: [0.25, 1],
  },
  fireflies: {
    count: 40,
    colours: ['#e8ff8a', '#fff2a0'],
    size: [2.6, 4.6],
    alpha: [0.7, 1],
    vx: [-0.01, 0.01],
    vy: [-0.006, 0.006],
    sway: 0.02,
    twinkle: [0.3, 0.8],
    band: ['horizon', 1],
  },
  glints: {
    count: 90,
    colours: ['#ffffff', '#fff4d6'],
    size: [1.3, 2.8],
    alpha: [0.7, 1],
    vx: [0.002, 0.006],
    vy: [0, 0],
    sway: 0.002,
    twinkle: [0.5, 1.4],
    band: ['horizon', 1],
  },
  dust: {
    count: 50,
    colours: ['#fff6d8', '#ffffff'],
    size: [1.3, 2.6],
    alpha: [0.2, 0.45],
    vx: [0.004, 0.014],
    vy: [-0.004, 0.003],
    sway: 0.008,
    twinkle: [0, 0],
    band: [0.12, 1],
  },
  sand: {
    count: 90,
    colours: ['#ecd1a0', '#d9b27a'],
    size: [1, 2],
    alpha: [0.3, 0.55],
    vx: [0.06, 0.12],
    vy: [-0.004, 0.004],
    sway: 0.004,
    twinkle: [0, 0],
    band: ['horizon', 1],
  },
  stardust: {
    count: 60,
    colours: ['#dde8ff', '#ffffff'],
    size: [1, 2],
    alpha: [0.5, 0.95],
    vx: [0.001, 0.003],
    vy: [0, 0],
    sway: 0,
    twinkle: [0.4, 1.2],
    band: [0, 1],
  },
  // Autumn leaves (an edit's): big, slow, swaying as they fall, in rust and gold.
  leaves: {
    count: 90,
    colours: ['#c8561e', '#a8321f', '#e0a020', '#8a4a1c'],
    size: [5, 9],
    alpha: [0.85, 1],
    vx: [-0.03, 0.06],
    vy: [0.12, 0.22],
    sway: 0.025,
    twinkle: [0, 0],
    band: [0, 1],
  },
};
