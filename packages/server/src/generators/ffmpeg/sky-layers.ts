/**
 * The sky half of a procedural scene, as SVG fragments: gradient, stars, sun or moon with its halo,
 * clouds. Soft light comes from radial gradients, never SVG blur filters: librsvg's blur costs
 * seconds on a 2K canvas, a gradient costs nothing.
 */
import { mix } from './color.ts';
import type { Random } from './seeded-random.ts';
import type { SceneTheme } from './scene-theme.ts';

export interface SceneFrame {
  width: number;
  height: number;
  /** Horizon line in pixels from the top. */
  horizonY: number;
  /** min(width, height): sizes that must look the same in portrait and landscape. */
  unit: number;
}

export interface Celestial {
  x: number;
  y: number;
  r: number;
}

/** Rounds coordinates: a tenth of a pixel is invisible and keeps the SVG small. */
export const f = (v: number) => String(Math.round(v * 10) / 10);

export function skyGradient(theme: SceneTheme, frame: SceneFrame): { defs: string; body: string } {
  const h = frame.height;
  const horizon = Math.min(1, frame.horizonY / h);
  const defs = `<linearGradient id="sky" x1="0" y1="0" x2="0" y2="1">
<stop offset="0" stop-color="${theme.sky[0]}"/>
<stop offset="${f(horizon * 0.55)}" stop-color="${theme.sky[1]}"/>
<stop offset="${f(horizon)}" stop-color="${theme.sky[2]}"/>
<stop offset="1" stop-color="${theme.sky[2]}"/></linearGradient>`;
  return { defs, body: `<rect width="${frame.width}" height="${h}" fill="url(#sky)"/>` };
}

export function stars(theme: SceneTheme, frame: SceneFrame, rnd: Random): string {
  if (!theme.stars) return '';
  const count = Math.round((frame.width * frame.horizonY) / 2600);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const y = Math.pow(rnd.next(), 1.4) * frame.horizonY * 0.96;
    // Fewer, fainter stars near the horizon, where the air is thick.
    const fade = 1 - y / frame.horizonY;
    const r = (rnd.next() < 0.06 ? rnd.range(1.4, 2.2) : rnd.range(0.5, 1.2)) * (frame.unit / 1000);
    const colour = rnd.pick(['#ffffff', '#fff4dd', '#dde8ff']);
    out.push(
      `<circle cx="${f(rnd.range(0, frame.width))}" cy="${f(y)}" r="${f(Math.max(0.6, r))}" fill="${colour}" ` +
        `fill-opacity="${f(rnd.range(0.35, 1) * (0.3 + 0.7 * fade))}"/>`,
    );
  }
  return out.join('');
}

export function placeCelestial(theme: SceneTheme, frame: SceneFrame, rnd: Random): Celestial | undefined {
  if (theme.celestial === 'none') return undefined;
  const x = frame.width * rnd.range(0.3, 0.7);
  if (theme.celestial === 'moon') return { x, y: frame.horizonY * rnd.range(0.25, 0.4), r: frame.unit * 0.045 };
  if (theme.time === 'day') return { x, y: frame.horizonY * rnd.range(0.25, 0.45), r: frame.unit * 0.05 };
  // Sunset and fire: a big low sun, its lower edge already behind the horizon.
  const r = frame.unit * 0.085;
  return { x, y: frame.horizonY - r * 0.45, r };
}

export function celestialBody(theme: SceneTheme, frame: SceneFrame, c: Celestial): { defs: string; body: string } {
  const low = theme.time === 'sunset' || theme.time === 'fire';
  const defs = `<radialGradient id="halo">
<stop offset="0" stop-color="${theme.glow}" stop-opacity="${low ? 0.85 : 0.6}"/>
<stop offset="0.35" stop-color="${theme.glow}" stop-opacity="${low ? 0.3 : 0.18}"/>
<stop offset="1" stop-color="${theme.glow}" stop-opacity="0"/></radialGradient>
<radialGradient id="band"><stop offset="0" stop-color="${theme.glow}" stop-opacity="0.45"/>
<stop offset="1" stop-color="${theme.glow}" stop-opacity="0"/></radialGradient>
<radialGradient id="disc" cx="0.45" cy="0.42">
<stop offset="0" stop-color="${mix(theme.light, '#ffffff', low ? 0.3 : 0.5)}"/>
<stop offset="1" stop-color="${theme.light}"/></radialGradient>`;
  const parts = [`<circle cx="${f(c.x)}" cy="${f(c.y)}" r="${f(c.r * (low ? 7 : 6))}" fill="url(#halo)"/>`];
  // A wide glow along the horizon is what makes a sunset read as a sunset rather than a noon sun.
  if (low)
    parts.push(
      `<ellipse cx="${f(c.x)}" cy="${f(frame.horizonY)}" rx="${f(frame.width * 0.75)}" ry="${f(c.r * 3.5)}" ` +
        `fill="url(#band)"/>`,
    );
  parts.push(`<circle cx="${f(c.x)}" cy="${f(c.y)}" r="${f(c.r)}" fill="url(#disc)"/>`);
  if (theme.celestial === 'moon') {
    const shade = mix(theme.light, '#9aa3b5', 0.5);
    for (const [dx, dy, rr] of [
      [-0.3, -0.2, 0.22],
      [0.25, 0.15, 0.16],
      [-0.05, 0.38, 0.12],
    ]) {
      parts.push(
        `<circle cx="${f(c.x + dx * c.r)}" cy="${f(c.y + dy * c.r)}" r="${f(rr * c.r)}" fill="${shade}" ` +
          `fill-opacity="0.35"/>`,
      );
    }
  }
  return { defs, body: parts.join('') };
}

/** Puffy clouds by day, long lit streaks at dusk, none at night. */
export function clouds(theme: SceneTheme, frame: SceneFrame, rnd: Random): string {
  if (theme.time === 'night' || theme.terrain === 'space') return '';
  const out: string[] = [];
  const count = rnd.int(2, 5);
  for (let i = 0; i < count; i++) {
    const cx = rnd.range(-0.1, 1.1) * frame.width;
    const cy = frame.horizonY * rnd.range(0.12, 0.6);
    const size = frame.unit * rnd.range(0.06, 0.12);
    if (theme.time === 'day') out.push(puff(cx, cy, size, rnd));
    else {
      const colour = mix(theme.glow, theme.sky[1], rnd.range(0.2, 0.6));
      for (let k = 0; k < 3; k++) {
        out.push(
          `<ellipse cx="${f(cx + rnd.range(-1, 1) * size * 2)}" cy="${f(cy + k * size * 0.35)}" ` +
            `rx="${f(size * rnd.range(3, 6))}" ry="${f(size * rnd.range(0.08, 0.16))}" fill="${colour}" ` +
            `fill-opacity="${f(rnd.range(0.35, 0.6))}"/>`,
        );
      }
    }
  }
  return out.join('');
}

function puff(cx: number, cy: number, size: number, rnd: Random): string {
  const out = [
    `<ellipse cx="${f(cx)}" cy="${f(cy + size * 0.35)}" rx="${f(size * 2.4)}" ry="${f(size * 0.45)}" ` +
      `fill="#dfe6ee" fill-opacity="0.85"/>`,
  ];
  for (let k = 0; k < 5; k++) {
    const x = cx + (k - 2) * size * rnd.range(0.6, 0.9);
    const r = size * rnd.range(0.55, 1) * (1 - Math.abs(k - 2) * 0.18);
    out.push(`<circle cx="${f(x)}" cy="${f(cy - r * 0.3)}" r="${f(r)}" fill="#ffffff" fill-opacity="0.9"/>`);
  }
  return `<g opacity="0.85">${out.join('')}</g>`;
}

/** Darkened corners: cheap, and it pulls the eye to the middle like a real lens does. */
export function vignette(frame: SceneFrame): { defs: string; body: string } {
  const defs = `<radialGradient id="vignette" cx="0.5" cy="0.5" r="0.75">
<stop offset="0.55" stop-color="#000000" stop-opacity="0"/>
<stop offset="1" stop-color="#000000" stop-opacity="0.42"/></radialGradient>`;
  return { defs, body: `<rect width="${frame.width}" height="${frame.height}" fill="url(#vignette)"/>` };
}
