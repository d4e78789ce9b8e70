/**
 * Deep space: faint nebula clouds and a lit planet, some with a ring. There is no land, so the
 * scene's horizon sits at the bottom and stars fill the whole frame.
 */
import { hsl } from './color.ts';
import type { Random } from './seeded-random.ts';
import type { SceneTheme } from './scene-theme.ts';
import { f, type SceneFrame } from './sky-layers.ts';

export function spaceLayer(theme: SceneTheme, frame: SceneFrame, rnd: Random): { defs: string; body: string } {
  const hue = rnd.range(180, 320);
  const defs: string[] = [];
  const out: string[] = [];
  for (let i = 0; i < 3; i++) {
    defs.push(
      `<radialGradient id="neb${i}"><stop offset="0" stop-color="${hsl(hue + i * 35, 0.6, 0.5)}" ` +
        `stop-opacity="0.32"/><stop offset="1" stop-color="${hsl(hue + i * 35, 0.6, 0.3)}" ` +
        `stop-opacity="0"/></radialGradient>`,
    );
    out.push(
      `<ellipse cx="${f(frame.width * rnd.range(0.1, 0.9))}" cy="${f(frame.height * rnd.range(0.15, 0.8))}" ` +
        `rx="${f(frame.unit * rnd.range(0.4, 0.8))}" ry="${f(frame.unit * rnd.range(0.2, 0.4))}" ` +
        `fill="url(#neb${i})"/>`,
    );
  }
  const r = frame.unit * rnd.range(0.22, 0.34);
  const cx = frame.width * rnd.pick([0.28, 0.72]);
  const cy = frame.height * rnd.range(0.55, 0.7);
  const base = theme.ground[rnd.int(0, theme.ground.length - 1)];
  // Lit from the upper left: a bright limb and a dark terminator give the disc its roundness.
  defs.push(
    `<radialGradient id="planet" cx="0.35" cy="0.3" r="0.8"><stop offset="0" ` +
      `stop-color="${hsl(hue + 160, 0.45, 0.72)}"/><stop offset="0.55" stop-color="${base}"/><stop offset="1" ` +
      `stop-color="#05060c"/></radialGradient>`,
  );
  const ring = rnd.next() < 0.5;
  const ringPath = (front: boolean) =>
    `<path d="M${f(cx - r * 1.9)},${f(cy)} A${f(r * 1.9)},${f(r * 0.42)} 0 0 ${front ? 0 : 1} ` +
    `${f(cx + r * 1.9)},${f(cy)}" fill="none" stroke="${hsl(hue + 40, 0.35, 0.75)}" ` +
    `stroke-width="${f(r * 0.07)}" stroke-opacity="0.7"/>`;
  if (ring) out.push(ringPath(false));
  out.push(`<circle cx="${f(cx)}" cy="${f(cy)}" r="${f(r)}" fill="url(#planet)"/>`);
  if (ring) out.push(ringPath(true));
  return { defs: defs.join(''), body: out.join('') };
}
