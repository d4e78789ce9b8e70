/**
 * What the shapes of everyday things share (subject-shapes.ts, sky-shapes.ts): where a thing is
 * placed, what a drawing returns, its bounding box, and small SVG and colour helpers.
 */
import { mix } from './color.ts';
import type { Random } from './seeded-random.ts';
import type { SceneTheme } from './scene-theme.ts';
import { f, type SceneFrame } from './sky-layers.ts';

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Placement {
  x: number;
  y: number;
  /** A ground thing out at sea stands on a rock. */
  rock?: boolean;
  /** The colour the prompt names, for a thing that is painted (a kite, a car, a balloon, a hull). */
  paint?: string;
}

export interface Drawn {
  body: string;
  defs?: string;
  box: Box;
}

export type Shape = (theme: SceneTheme, frame: SceneFrame, rnd: Random, at: Placement) => Drawn;

/** A colour as the scene's light shows it: full by day, warmer and dimmer at dusk, moonlit at night. */
export function lit(theme: SceneTheme, colour: string): string {
  if (theme.time === 'day') return colour;
  if (theme.time === 'night') return mix(colour, '#2a3a66', 0.38);
  return mix(colour, theme.time === 'fire' ? '#5a1a10' : '#6a3550', 0.28);
}
export const dark = (theme: SceneTheme) => (theme.time === 'day' ? '#2b2f3a' : '#10131d');

export const box = (x: number, y: number, width: number, height: number): Box => ({ x, y, width, height });
export const rect = (x: number, y: number, w: number, h: number, fill: string) =>
  `<rect x="${f(x)}" y="${f(y)}" width="${f(w)}" height="${f(h)}" fill="${fill}"/>`;
export const poly = (pts: Array<[number, number]>, fill: string) =>
  `<path d="M${pts.map(([x, y]) => `${f(x)},${f(y)}`).join(' L')} Z" fill="${fill}"/>`;

/** A dark rock for a ground thing to stand on at sea. */
export function rock(theme: SceneTheme, at: Placement, halfWidth: number, u: number): string {
  const fill = mix(theme.ground[3] ?? '#33302c', '#1d1b1a', 0.4);
  return (
    `<ellipse cx="${f(at.x)}" cy="${f(at.y + u * 0.012)}" rx="${f(halfWidth * 1.6)}" ry="${f(u * 0.035)}" ` +
    `fill="${fill}"/>`
  );
}
