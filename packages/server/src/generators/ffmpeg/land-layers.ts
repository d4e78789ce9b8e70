/**
 * Land as layered ridges, far to near: hills, forests, dunes, snowfields, mountains. Depth comes from
 * the theme's colours (far layers already faded towards the horizon) and from scale: nearer ridges
 * sit lower, rise higher and carry bigger trees.
 */
import { mix } from './color.ts';
import type { Random } from './seeded-random.ts';
import type { SceneTheme } from './scene-theme.ts';
import { f, type SceneFrame } from './sky-layers.ts';

const STEPS = 96;
// Layer bases as fractions of the land below the horizon (the farthest peeks above it), and relief.
const BASES = [-0.04, 0.14, 0.34, 0.6];
const RELIEF = [0.05, 0.06, 0.075, 0.095];

/** Heights of a ridge at STEPS + 1 evenly spaced x positions spanning the frame. */
export function ridge(baseY: number, relief: number, rnd: Random, smooth = false): number[] {
  const waves = (smooth ? [0.6, 1.3] : [0.8, 1.9, 4.3, 9.7]).map((cycles, i) => ({
    cycles: cycles * rnd.range(0.8, 1.25),
    phase: rnd.range(0, Math.PI * 2),
    amp: relief / (1 + i * 1.3),
  }));
  const ys: number[] = [];
  for (let i = 0; i <= STEPS; i++) {
    const x = i / STEPS;
    let y = baseY;
    for (const w of waves) y -= w.amp * (0.5 + 0.5 * Math.sin(x * w.cycles * Math.PI * 2 + w.phase));
    ys.push(y);
  }
  return ys;
}

export const xAt = (frame: SceneFrame, i: number) => -frame.width * 0.02 + (i / STEPS) * frame.width * 1.04;

/** A closed shape: the ridge line, then down to below the frame's bottom. */
export function ridgePath(frame: SceneFrame, ys: number[]): string {
  const pts = ys.map((y, i) => `${f(xAt(frame, i))},${f(y)}`).join(' L');
  return `M${f(xAt(frame, 0))},${frame.height + 2} L${pts} L${f(xAt(frame, STEPS))},${frame.height + 2} Z`;
}

/** Hills, forest, desert and snow: four ridges, with trees or dune crests where they belong. */
export function ridgeLand(theme: SceneTheme, frame: SceneFrame, rnd: Random): { defs: string; body: string } {
  const land = frame.height - frame.horizonY;
  const defs: string[] = [];
  const out: string[] = [];
  theme.ground.forEach((colour, i) => {
    const base = frame.horizonY + land * BASES[i];
    const ys = ridge(
      base,
      frame.unit * RELIEF[i] * (theme.terrain === 'desert' ? 1.2 : 1),
      rnd,
      theme.terrain === 'desert',
    );
    let fill = colour;
    if (theme.terrain === 'desert' || theme.terrain === 'snow') {
      // Sunlit crests, shaded troughs: the one cue that makes dunes and drifts read as shapes.
      const shadow = theme.terrain === 'snow' ? mix(colour, '#7f9dbf', 0.45) : mix(colour, '#000000', 0.22);
      defs.push(
        `<linearGradient id="land${i}" x1="0" y1="0" x2="0" y2="1"><stop offset="0" ` +
          `stop-color="${mix(colour, '#ffffff', 0.18)}"/><stop offset="1" stop-color="${shadow}"/></linearGradient>`,
      );
      fill = `url(#land${i})`;
    }
    out.push(`<path d="${ridgePath(frame, ys)}" fill="${fill}"/>`);
    if (theme.terrain === 'desert') out.push(crest(frame, ys, mix(colour, '#fff4dc', 0.35)));
    if (theme.terrain === 'forest' || (theme.terrain === 'snow' && i >= 1) || (theme.terrain === 'hills' && i === 1)) {
      const treeColour =
        theme.terrain === 'snow' ? mix('#1c3a33', colour, 0.15 + 0.15 * (3 - i)) : mix(colour, '#000000', 0.18);
      out.push(trees(frame, ys, i, treeColour, rnd, { forest: 1, snow: 0.45 }[theme.terrain as string] ?? 0.25));
    }
  });
  return { defs: defs.join(''), body: out.join('') };
}

function crest(frame: SceneFrame, ys: number[], colour: string): string {
  const pts = ys.map((y, i) => `${f(xAt(frame, i))},${f(y + 1)}`).join(' L');
  return (
    `<path d="M${pts}" fill="none" stroke="${colour}" stroke-width="${f(frame.unit * 0.003)}" ` +
    `stroke-opacity="0.6"/>`
  );
}

/** Conifers standing on a ridge line; `density` 1 is a closed forest edge. */
function trees(frame: SceneFrame, ys: number[], layer: number, colour: string, rnd: Random, density: number): string {
  const height = frame.unit * [0.035, 0.05, 0.075, 0.12][layer];
  const parts: string[] = [];
  let x = -height;
  while (x < frame.width + height) {
    const h = height * rnd.range(0.7, 1.3);
    if (rnd.next() < density) parts.push(conifer(x, groundAt(frame, ys, x) + h * 0.1, h));
    x += (h * rnd.range(0.22, 0.42)) / Math.max(0.25, density);
  }
  return `<path d="${parts.join('')}" fill="${colour}"/>`;
}

function groundAt(frame: SceneFrame, ys: number[], x: number): number {
  const pos = ((x + frame.width * 0.02) / (frame.width * 1.04)) * STEPS;
  const i = Math.max(0, Math.min(STEPS - 1, Math.floor(pos)));
  const t = Math.max(0, Math.min(1, pos - i));
  return ys[i] + (ys[i + 1] - ys[i]) * t;
}

function conifer(x: number, baseY: number, h: number): string {
  const w = h * 0.36;
  // Three stacked tiers and a trunk; one subpath per tree keeps the whole forest in one element.
  const tiers = [0, 0.3, 0.55].map((t, k) => {
    const top = baseY - h + t * h * 0.9;
    const bottom = baseY - h * (0.12 + (2 - k) * 0.28) + h * 0.1;
    const half = w * (0.55 + k * 0.25);
    return `M${f(x)},${f(top)} L${f(x + half)},${f(bottom)} L${f(x - half)},${f(bottom)} Z`;
  });
  const door = `M${f(x - w * 0.07)},${f(baseY - h * 0.15)} h${f(w * 0.14)} v${f(h * 0.17)} h${f(-w * 0.14)} Z`;
  return `${tiers.join('')}${door}`;
}

/**
 * Two ranges of jagged peaks (snow-capped unless on fire), then wooded foothills. `box`: the ranges'
 * bounding box, from the highest peak down to where the foothills start.
 */
export function mountains(
  theme: SceneTheme,
  frame: SceneFrame,
  rnd: Random,
  /** The ranges left out (scene-svg.ts's test hook), every random draw made as usual. */
  hidden = false,
): { defs: string; body: string; box: { x: number; y: number; width: number; height: number } } {
  const land = frame.height - frame.horizonY;
  const defs: string[] = [];
  const out: string[] = [];
  let highest = frame.height;
  for (const i of [0, 1]) {
    const base = frame.horizonY + land * (i === 0 ? 0.05 : 0.25);
    const peak = frame.unit * (i === 0 ? 0.36 : 0.26);
    const ys = jagged(base, peak, rnd);
    highest = Math.min(highest, ...ys);
    const path = ridgePath(frame, ys);
    if (!hidden) out.push(`<path d="${path}" fill="${theme.ground[i]}"/>`);
    if (theme.time !== 'fire') {
      defs.push(`<clipPath id="peak${i}"><path d="${path}"/></clipPath>`);
      const top = Math.min(...ys);
      const line = top + (base - top) * rnd.range(0.3, 0.42);
      // Snow takes the light's colour: white by day, pink-gold at dusk, blue-grey under the moon.
      const snow = {
        day: '#f4f8fc',
        sunset: mix('#ffd2b4', theme.ground[i], 0.35),
        fire: '',
        night: mix('#c9d5e8', theme.ground[i], 0.45),
      }[theme.time];
      const edge = ys
        .map((_, k) => `${f(xAt(frame, k))},${f(line + rnd.range(-1, 1) * frame.unit * 0.018)}`)
        .join(' L');
      if (!hidden)
        out.push(
          `<path d="M${f(xAt(frame, 0))},0 L${edge} L${f(xAt(frame, ys.length - 1))},0 Z" fill="${snow}" ` +
            `clip-path="url(#peak${i})" fill-opacity="0.92"/>`,
        );
    }
  }
  for (const i of [2, 3]) {
    const ys = ridge(frame.horizonY + land * BASES[i], frame.unit * RELIEF[i], rnd);
    out.push(`<path d="${ridgePath(frame, ys)}" fill="${theme.ground[i]}"/>`);
    out.push(trees(frame, ys, i, mix(theme.ground[i], '#000000', 0.2), rnd, 0.7));
  }
  const foot = frame.horizonY + land * BASES[2];
  const box = { x: 0, y: Math.max(0, highest), width: frame.width, height: foot - Math.max(0, highest) };
  return { defs: defs.join(''), body: out.join(''), box };
}

/** Midpoint displacement: a few random peaks, then ever finer jags. */
function jagged(baseY: number, peak: number, rnd: Random): number[] {
  let ys = [baseY - peak * 0.3];
  const peaks = rnd.int(2, 4);
  for (let k = 0; k < peaks * 2; k++) ys.push(baseY - peak * (k % 2 === 0 ? rnd.range(0.6, 1) : rnd.range(0.15, 0.45)));
  ys.push(baseY - peak * 0.25);
  let spread = peak * 0.22;
  while (ys.length <= STEPS) {
    const next: number[] = [];
    for (let k = 0; k < ys.length - 1; k++) next.push(ys[k], (ys[k] + ys[k + 1]) / 2 + rnd.range(-spread, spread));
    next.push(ys[ys.length - 1]);
    ys = next;
    spread *= 0.55;
  }
  // Resample to STEPS + 1 points so mountains share the ridge helpers.
  return Array.from({ length: STEPS + 1 }, (_, i) => ys[Math.round((i / STEPS) * (ys.length - 1))]);
}
