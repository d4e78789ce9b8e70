/**
 * Open water: a deepening gradient, wave strokes that crowd together towards the horizon (that
 * spacing is what sells the perspective), maybe a far coast, and the sun's or moon's glitter path.
 */
import { mix } from './color.ts';
import type { Random } from './seeded-random.ts';
import type { SceneTheme } from './scene-theme.ts';
import { f, type Celestial, type SceneFrame } from './sky-layers.ts';

export function oceanLayer(
  theme: SceneTheme,
  frame: SceneFrame,
  rnd: Random,
  light?: Celestial,
  /** The water left out (scene-svg.ts's test hook), every random draw made as usual. */
  hidden = false,
): { defs: string; body: string } {
  const { width, height, horizonY } = frame;
  const defs =
    '<linearGradient id="water" x1="0" y1="0" x2="0" y2="1">' +
    `<stop offset="0" stop-color="${theme.water[0]}"/>` +
    `<stop offset="1" stop-color="${theme.water[1]}"/></linearGradient>`;
  const out = hidden
    ? []
    : [`<rect x="0" y="${f(horizonY)}" width="${width}" height="${f(height - horizonY + 1)}" fill="url(#water)"/>`];
  if (rnd.next() < 0.6) out.push(farCoast(theme, frame, rnd));
  out.push(waves(theme, frame, rnd));
  if (light) out.push(glitter(theme, frame, rnd, light));
  return { defs, body: out.join('') };
}

function farCoast(theme: SceneTheme, frame: SceneFrame, rnd: Random): string {
  const fromLeft = rnd.next() < 0.5;
  const span = frame.width * rnd.range(0.25, 0.45);
  const x0 = fromLeft ? -2 : frame.width - span;
  const h = frame.unit * rnd.range(0.025, 0.05);
  const pts: string[] = [];
  for (let i = 0; i <= 24; i++) {
    const t = i / 24;
    // Tallest at the frame's edge, tapering to nothing out at sea.
    const taper = fromLeft ? 1 - t : t;
    const bump = 0.7 + 0.3 * Math.sin(t * 9 + rnd.range(0, 0.6));
    pts.push(`${f(x0 + t * (span + 2))},${f(frame.horizonY - h * Math.pow(taper, 0.6) * bump)}`);
  }
  const colour = mix(theme.ground[0], theme.sky[2], 0.25);
  return (
    `<path d="M${f(x0)},${f(frame.horizonY + 1)} L${pts.join(' L')} L${f(x0 + span + 2)},${f(frame.horizonY + 1)} ` +
    `Z" fill="${colour}"/>`
  );
}

function waves(theme: SceneTheme, frame: SceneFrame, rnd: Random): string {
  const depth = frame.height - frame.horizonY;
  const crest = theme.time === 'day' ? theme.accent : mix(theme.glow, theme.water[0], 0.4);
  const trough = mix(theme.water[1], '#000000', 0.25);
  // Three depth bands, each one path per colour: strokes thicken towards the viewer.
  const bands = [0.25, 0.6, 1].map(() => ({ light: [] as string[], dark: [] as string[] }));
  const rows = 70;
  for (let j = 0; j < rows; j++) {
    const d = (j + 1) / rows;
    const y = frame.horizonY + depth * Math.pow(d, 1.7);
    const band = bands[d <= 0.25 ? 0 : d <= 0.6 ? 1 : 2];
    const dashes = 4 + Math.round(rnd.range(4, 9) * (1 - d * 0.5));
    for (let k = 0; k < dashes; k++) {
      const len = frame.width * rnd.range(0.01, 0.045) * (0.35 + d * 1.8);
      const seg = `M${f(rnd.range(-0.05, 1) * frame.width)},${f(y + rnd.range(-1, 1) * depth * 0.004)} h${f(len)}`;
      (rnd.next() < 0.55 ? band.light : band.dark).push(seg);
    }
  }
  const stroke = (d: string[], colour: string, w: number, o: number) =>
    `<path d="${d.join('')}" stroke="${colour}" stroke-width="${f(w)}" stroke-linecap="round" fill="none" ` +
    `stroke-opacity="${o}"/>`;
  const unit = Math.max(0.5, frame.unit * 0.0035);
  return bands
    .map((b, i) => {
      const w = unit * [0.45, 0.9, 1.6][i];
      return stroke(b.dark, trough, w * 1.4, 0.35) + stroke(b.light, crest, w, 0.3);
    })
    .join('');
}

/** The broken column of light on the water under the sun or moon. */
function glitter(theme: SceneTheme, frame: SceneFrame, rnd: Random, light: Celestial): string {
  const depth = frame.height - frame.horizonY;
  const bright = mix(theme.light, '#ffffff', 0.3);
  const warm = theme.time === 'day' ? bright : theme.glow;
  const out: string[] = [];
  const rows = 90;
  for (let j = 0; j < rows; j++) {
    const d = j / rows;
    const y = frame.horizonY + depth * Math.pow(d, 1.6) + 1;
    const spread = light.r * (0.5 + 2.6 * d);
    for (let k = 0; k < 2; k++) {
      const cx = light.x + rnd.range(-1, 1) * spread;
      const len = light.r * rnd.range(0.2, 0.9) * (0.4 + 1.6 * d);
      const colour = rnd.next() < 0.4 ? bright : warm;
      const o = (theme.time === 'day' ? 0.55 : 0.85) * (1 - d * 0.65) * rnd.range(0.35, 1);
      out.push(
        `<rect x="${f(cx - len / 2)}" y="${f(y)}" width="${f(len)}" ` +
          `height="${f(Math.max(1, frame.unit * (0.002 + 0.004 * d)))}" fill="${colour}" fill-opacity="${f(o)}"/>`,
      );
    }
  }
  return out.join('');
}
