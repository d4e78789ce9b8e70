/**
 * A skyline: three rows of buildings, paler with distance, with lit windows once the light goes.
 */
import { mix } from './color.ts';
import type { Random } from './seeded-random.ts';
import type { SceneTheme } from './scene-theme.ts';
import { f, type SceneFrame } from './sky-layers.ts';

export function cityLayer(theme: SceneTheme, frame: SceneFrame, rnd: Random): { defs: string; body: string } {
  const lit = theme.time !== 'day';
  const street = frame.horizonY + (frame.height - frame.horizonY) * 0.3;
  // Ground under the whole skyline, so no sky shows between the rows of buildings.
  const out = [
    `<rect x="0" y="${f(frame.horizonY)}" width="${frame.width}" ` +
      `height="${f(frame.height - frame.horizonY + 1)}" fill="${theme.ground[2]}"/>`,
  ];
  for (let row = 0; row < 3; row++) {
    const colour = theme.ground[row];
    const baseY = frame.horizonY + (frame.height - frame.horizonY) * row * 0.12;
    const scale = frame.unit * (0.75 + row * 0.35);
    const shapes: string[] = [];
    const windows: string[] = [];
    let x = -rnd.range(0, 0.05) * frame.width;
    while (x < frame.width) {
      const w = scale * rnd.range(0.06, 0.14);
      const h = scale * rnd.range(0.12, 0.45) * (rnd.next() < 0.12 ? 1.6 : 1);
      shapes.push(`M${f(x)},${f(baseY + 2)} v${f(-h)} h${f(w)} v${f(h)} Z`);
      // A few towers get a spire: a skyline of flat boxes looks like a bar chart.
      if (rnd.next() < 0.15)
        shapes.push(`M${f(x + w * 0.47)},${f(baseY - h)} v${f(-h * 0.18)} h${f(w * 0.06)} v${f(h * 0.18)} Z`);
      if (row > 0) windows.push(...buildingWindows(x, baseY - h, w, h, lit, rnd));
      x += w + scale * rnd.range(0, 0.02);
    }
    out.push(`<path d="${shapes.join('')}" fill="${colour}"/>`);
    if (windows.length) {
      const glow = lit ? theme.accent : mix(theme.sky[2], '#ffffff', 0.3);
      out.push(`<path d="${windows.join('')}" fill="${glow}" fill-opacity="${lit ? 0.85 : 0.18}"/>`);
    }
  }
  out.push(
    `<rect x="0" y="${f(street)}" width="${frame.width}" height="${f(frame.height - street + 1)}" ` +
      `fill="${mix(theme.ground[3], '#000000', 0.2)}"/>`,
  );
  if (lit) out.push(streetLights(theme, frame, street, rnd));
  return { defs: '', body: out.join('') };
}

function buildingWindows(x: number, top: number, w: number, h: number, lit: boolean, rnd: Random): string[] {
  const cell = Math.max(3, w / rnd.int(4, 7));
  const size = cell * 0.45;
  const out: string[] = [];
  const chance = lit ? rnd.range(0.25, 0.55) : 0.9;
  for (let wy = top + cell * 0.6; wy < top + h - cell; wy += cell * 1.2) {
    for (let wx = x + cell * 0.45; wx < x + w - size - cell * 0.3; wx += cell) {
      if (rnd.next() < chance) out.push(`M${f(wx)},${f(wy)} h${f(size)} v${f(size * 1.3)} h${f(-size)} Z`);
    }
  }
  return out;
}

function streetLights(theme: SceneTheme, frame: SceneFrame, y: number, rnd: Random): string {
  const out: string[] = [];
  const step = frame.width / rnd.int(10, 16);
  for (let x = step / 2; x < frame.width; x += step) {
    out.push(
      `<circle cx="${f(x)}" cy="${f(y + frame.unit * 0.01)}" r="${f(frame.unit * 0.006)}" fill="${theme.accent}" ` +
        `fill-opacity="0.9"/>`,
    );
  }
  return out.join('');
}
