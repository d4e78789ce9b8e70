/**
 * The shapes of everyday things in the sky (scene-subjects.ts): a bird, a kite, the moon, a
 * hot-air balloon. Sizes are shares of the frame's short side; every box is at least about 2.5 %
 * of the frame.
 */
import { mix } from './color.ts';
import { box, dark, lit, poly, rect, type Shape } from './shape-kit.ts';
import { f } from './sky-layers.ts';

const bird: Shape = (theme, frame, rnd, at) => {
  const u = frame.unit;
  const span = u * 0.34;
  const h = u * 0.15;
  const { x, y } = at;
  // Dark against a day sky, pale against a night one.
  const fill = theme.time === 'night' ? '#e4e8f2' : '#22252e';
  const lift = rnd.range(0.85, 1.1);
  const d =
    `M${f(x - span / 2)},${f(y - h * 0.55 * lift)} Q${f(x - span * 0.22)},${f(y - h * lift)} ${f(x)},${f(y)} ` +
    `Q${f(x + span * 0.22)},${f(y - h * lift)} ${f(x + span / 2)},${f(y - h * 0.55 * lift)} ` +
    `Q${f(x + span * 0.2)},${f(y - h * 0.35)} ${f(x)},${f(y + h * 0.12)} ` +
    `Q${f(x - span * 0.2)},${f(y - h * 0.35)} ${f(x - span / 2)},${f(y - h * 0.55 * lift)} Z`;
  return { body: `<path d="${d}" fill="${fill}"/>`, box: box(x - span / 2, y - h * lift, span, h * lift + h * 0.12) };
};

const kite: Shape = (theme, frame, rnd, at) => {
  const u = frame.unit;
  const w = u * 0.2;
  const h = u * 0.28;
  const { x, y } = at;
  const a = lit(theme, at.paint ?? rnd.pick(['#e8322c', '#f0b323', '#2f7de0']));
  const b = lit(theme, '#ffd447');
  const top: [number, number] = [x, y - h * 0.5];
  const left: [number, number] = [x - w / 2, y - h * 0.15];
  const right: [number, number] = [x + w / 2, y - h * 0.15];
  const bottom: [number, number] = [x, y + h * 0.5];
  const centre: [number, number] = [x, y - h * 0.15];
  const string = mix(theme.sky[2], '#333333', 0.5);
  const body =
    poly([top, right, centre], a) +
    poly([top, left, centre], b) +
    poly([left, bottom, centre], a) +
    poly([right, bottom, centre], b) +
    `<path d="M${f(x)},${f(y + h * 0.5)} q${f(u * 0.05)},${f(u * 0.1)} ${f(-u * 0.02)},${f(u * 0.22)}" fill="none" ` +
    `stroke="${string}" stroke-width="${f(u * 0.003)}"/>`;
  return { body, box: box(x - w / 2, y - h * 0.5, w, h) };
};

const moon: Shape = (theme, frame, _rnd, at) => {
  const r = frame.unit * 0.12;
  const disc = theme.time === 'day' ? '#f2f4f8' : '#f4f1e4';
  const shade = mix(disc, '#9aa3b5', 0.5);
  const craters = [
    [-0.3, -0.2, 0.22],
    [0.25, 0.15, 0.16],
    [-0.05, 0.38, 0.12],
  ]
    .map(
      ([dx, dy, rr]) =>
        `<circle cx="${f(at.x + dx * r)}" cy="${f(at.y + dy * r)}" r="${f(rr * r)}" fill="${shade}" ` +
        'fill-opacity="0.4"/>',
    )
    .join('');
  return {
    body: `<circle cx="${f(at.x)}" cy="${f(at.y)}" r="${f(r)}" fill="${disc}"/>${craters}`,
    box: box(at.x - r, at.y - r, 2 * r, 2 * r),
  };
};

const balloon: Shape = (theme, frame, rnd, at) => {
  const u = frame.unit;
  const r = u * 0.1;
  const { x, y } = at;
  const a = lit(theme, at.paint ?? rnd.pick(['#e8322c', '#f08a1c', '#7a3fd0']));
  const b = lit(theme, '#ffd447');
  const top = y - r * 1.6;
  const envelope =
    `M${f(x - r)},${f(top + r)} A${f(r)},${f(r)} 0 0 1 ${f(x + r)},${f(top + r)} ` +
    `Q${f(x + r)},${f(top + r * 1.7)} ${f(x + r * 0.25)},${f(top + r * 2.2)} L${f(x - r * 0.25)},${f(top + r * 2.2)} ` +
    `Q${f(x - r)},${f(top + r * 1.7)} ${f(x - r)},${f(top + r)} Z`;
  const stripe =
    `M${f(x - r * 0.35)},${f(top + r * 0.06)} L${f(x + r * 0.35)},${f(top + r * 0.06)} ` +
    `L${f(x + r * 0.25)},${f(top + r * 2.2)} L${f(x - r * 0.25)},${f(top + r * 2.2)} Z`;
  const basket = rect(x - r * 0.22, top + r * 2.45, r * 0.44, r * 0.3, lit(theme, '#6b4a2b'));
  const ropes =
    `<path d="M${f(x - r * 0.25)},${f(top + r * 2.2)} L${f(x - r * 0.2)},${f(top + r * 2.45)} ` +
    `M${f(x + r * 0.25)},${f(top + r * 2.2)} L${f(x + r * 0.2)},${f(top + r * 2.45)}" ` +
    `stroke="${dark(theme)}" stroke-width="${f(u * 0.003)}"/>`;
  return {
    body: `<path d="${envelope}" fill="${a}"/><path d="${stripe}" fill="${b}"/>${ropes}${basket}`,
    box: box(x - r, top, 2 * r, r * 2.75),
  };
};

export const SKY_SHAPES = { bird, kite, moon, balloon };
