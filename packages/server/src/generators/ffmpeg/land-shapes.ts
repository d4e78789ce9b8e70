/**
 * Everyday things that are land or water (scene-subjects.ts): a far mountain range on the horizon,
 * for mountains named in a scene of other land, and a pond in the land.
 */
import { mix } from './color.ts';
import { ridgePath } from './land-layers.ts';
import type { SceneTheme } from './scene-theme.ts';
import { box, lit, poly, type Box, type Drawn, type Shape } from './shape-kit.ts';
import { f } from './sky-layers.ts';

/** A far range on the horizon, for mountains named in a scene whose land is something else. */
const mountains: Shape = (theme, frame, rnd, at) => {
  const u = frame.unit;
  const peak = u * 0.3;
  const base = at.y + u * 0.01;
  const ys: number[] = [];
  const peaks = [0.15, 0.38, 0.6, 0.84].map((p) => ({ at: p + rnd.range(-0.05, 0.05), h: rnd.range(0.55, 1) }));
  for (let i = 0; i <= 96; i++) {
    const t = i / 96;
    const height = Math.max(...peaks.map((p) => p.h * Math.max(0, 1 - Math.abs(t - p.at) / 0.16)));
    ys.push(base - peak * (0.12 + 0.88 * height));
  }
  const rockColour = lit(theme, '#56657a');
  const snow = lit(theme, '#f4f7fb');
  const path = ridgePath(frame, ys);
  const top = Math.min(...ys);
  const caps = peaks
    .map((p) => {
      const px = -frame.width * 0.02 + p.at * frame.width * 1.04;
      const py = base - peak * (0.12 + 0.88 * p.h);
      const s = peak * 0.16 * p.h;
      return poly(
        [
          [px, py],
          [px + s * 1.3, py + s],
          [px - s * 1.3, py + s],
        ],
        snow,
      );
    })
    .join('');
  return { body: `<path d="${path}" fill="${rockColour}"/>${caps}`, box: box(0, top, frame.width, base - top) };
};

/** A pond in the land, with a pale rim and a glint. */
function pond(theme: SceneTheme, area: Box): Drawn {
  const cx = area.x + area.width / 2;
  const cy = area.y + area.height / 2;
  const deep = theme.time === 'day' ? '#3d7fc2' : mix(theme.water[1], '#3d6fae', 0.4);
  const edge = theme.time === 'day' ? '#8cc3ea' : mix(theme.water[0], '#9ab8da', 0.3);
  const defs =
    `<radialGradient id="pond" cx="0.5" cy="0.4" r="0.6"><stop offset="0" stop-color="${edge}"/>` +
    `<stop offset="1" stop-color="${deep}"/></radialGradient>`;
  const body =
    `<ellipse cx="${f(cx)}" cy="${f(cy)}" rx="${f(area.width / 2)}" ry="${f(area.height / 2)}" fill="url(#pond)"/>` +
    `<ellipse cx="${f(cx)}" cy="${f(cy - area.height * 0.12)}" rx="${f(area.width * 0.3)}" ` +
    `ry="${f(area.height * 0.05)}" fill="#ffffff" fill-opacity="0.25"/>`;
  return { body, defs, box: area };
}

export const LAND_SHAPES = { mountains, pond };
