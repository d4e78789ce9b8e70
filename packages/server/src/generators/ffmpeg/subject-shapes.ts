/**
 * The shapes of scene-subjects.ts: each draws one thing at a placement (x: its centre, y: where it
 * stands or floats) and says its bounding box. Sizes are shares of the frame's short side, so a
 * thing reads the same in portrait and landscape; every box is at least about 2.5 % of the frame.
 * Colours are chosen to stand out from sky, land and water at any time of day: a thing in the
 * foreground is lit (by day) or moonlit and lamp-lit (at night) more than the land behind it.
 */
import { mix } from './color.ts';
import { ridgePath } from './land-layers.ts';
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

type Shape = (theme: SceneTheme, frame: SceneFrame, rnd: Random, at: Placement) => Drawn;

/** A colour as the scene's light shows it: full by day, warmer and dimmer at dusk, moonlit at night. */
function lit(theme: SceneTheme, colour: string): string {
  if (theme.time === 'day') return colour;
  if (theme.time === 'night') return mix(colour, '#2a3a66', 0.38);
  return mix(colour, theme.time === 'fire' ? '#5a1a10' : '#6a3550', 0.28);
}
const dark = (theme: SceneTheme) => (theme.time === 'day' ? '#2b2f3a' : '#10131d');

const box = (x: number, y: number, width: number, height: number): Box => ({ x, y, width, height });
const rect = (x: number, y: number, w: number, h: number, fill: string) =>
  `<rect x="${f(x)}" y="${f(y)}" width="${f(w)}" height="${f(h)}" fill="${fill}"/>`;
const poly = (pts: Array<[number, number]>, fill: string) =>
  `<path d="M${pts.map(([x, y]) => `${f(x)},${f(y)}`).join(' L')} Z" fill="${fill}"/>`;

/** A dark rock for a ground thing to stand on at sea. */
function rock(theme: SceneTheme, at: Placement, halfWidth: number, u: number): string {
  const fill = mix(theme.ground[3] ?? '#33302c', '#1d1b1a', 0.4);
  return (
    `<ellipse cx="${f(at.x)}" cy="${f(at.y + u * 0.012)}" rx="${f(halfWidth * 1.6)}" ry="${f(u * 0.035)}" ` +
    `fill="${fill}"/>`
  );
}

const lighthouse: Shape = (theme, frame, _rnd, at) => {
  const u = frame.unit;
  const h = u * 0.46;
  const base = u * 0.052;
  const top = u * 0.034;
  const x = at.x;
  const y = at.y;
  const white = lit(theme, '#f6f3ec');
  const red = lit(theme, '#c8242b');
  const parts = at.rock ? [rock(theme, at, base, u)] : [];
  parts.push(
    poly(
      [
        [x - base, y],
        [x - top, y - h],
        [x + top, y - h],
        [x + base, y],
      ],
      white,
    ),
  );
  // Two red bands, then the gallery, the lantern (lit after dark) and the cap.
  for (const [from, to] of [
    [0.18, 0.36],
    [0.56, 0.74],
  ]) {
    const w0 = base - (base - top) * from;
    const w1 = base - (base - top) * to;
    parts.push(
      poly(
        [
          [x - w0, y - h * from],
          [x - w1, y - h * to],
          [x + w1, y - h * to],
          [x + w0, y - h * from],
        ],
        red,
      ),
    );
  }
  const lantern = theme.time === 'day' ? lit(theme, '#f2e6b0') : '#fff2b0';
  parts.push(rect(x - top * 1.5, y - h - u * 0.008, top * 3, u * 0.012, dark(theme)));
  parts.push(rect(x - top, y - h - u * 0.06, top * 2, u * 0.052, lantern));
  parts.push(
    poly(
      [
        [x - top * 1.3, y - h - u * 0.06],
        [x, y - h - u * 0.1],
        [x + top * 1.3, y - h - u * 0.06],
      ],
      red,
    ),
  );
  return { body: parts.join(''), box: box(x - base, y - h - u * 0.1, base * 2, h + u * 0.1) };
};

/** A sailing boat, or a folded paper one when the prompt says paper. */
function boat(theme: SceneTheme, frame: SceneFrame, _rnd: Random, at: Placement, prompt = ''): Drawn {
  const u = frame.unit;
  const w = u * 0.34;
  const { x, y } = at;
  if (/\bpaper\b/i.test(prompt)) {
    const h = u * 0.2;
    const paper = lit(theme, '#fbfbf7');
    const fold = lit(theme, '#c9ccd6');
    const body =
      poly(
        [
          [x - w / 2, y - h * 0.35],
          [x + w / 2, y - h * 0.35],
          [x + w * 0.32, y],
          [x - w * 0.32, y],
        ],
        paper,
      ) +
      poly(
        [
          [x - w * 0.2, y - h * 0.35],
          [x, y - h],
          [x + w * 0.2, y - h * 0.35],
        ],
        fold,
      ) +
      poly(
        [
          [x - w * 0.06, y - h * 0.35],
          [x, y - h],
          [x + w * 0.12, y - h * 0.35],
        ],
        paper,
      );
    return { body, box: box(x - w / 2, y - h, w, h) };
  }
  const h = u * 0.3;
  const hull = lit(theme, at.paint ?? '#8a2f22');
  const sail = lit(theme, '#fbf7ee');
  const body =
    poly(
      [
        [x - w / 2, y - u * 0.06],
        [x + w / 2, y - u * 0.06],
        [x + w * 0.36, y],
        [x - w * 0.36, y],
      ],
      hull,
    ) +
    rect(x - u * 0.006, y - h, u * 0.012, h - u * 0.06, dark(theme)) +
    poly(
      [
        [x + u * 0.012, y - h],
        [x + w * 0.42, y - u * 0.08],
        [x + u * 0.012, y - u * 0.08],
      ],
      sail,
    ) +
    poly(
      [
        [x - u * 0.012, y - h * 0.85],
        [x - w * 0.36, y - u * 0.08],
        [x - u * 0.012, y - u * 0.08],
      ],
      sail,
    );
  return { body, box: box(x - w / 2, y - h, w, h) };
}

const house: Shape = (theme, frame, _rnd, at) => {
  const u = frame.unit;
  const w = u * 0.26;
  const wall = u * 0.15;
  const roof = u * 0.11;
  const { x, y } = at;
  const windows = theme.time === 'day' ? lit(theme, '#5b7fa8') : '#ffd36b';
  const parts = at.rock ? [rock(theme, at, w / 2, u)] : [];
  parts.push(rect(x - w / 2, y - wall, w, wall, lit(theme, '#efe3c8')));
  parts.push(
    poly(
      [
        [x - w * 0.58, y - wall],
        [x, y - wall - roof],
        [x + w * 0.58, y - wall],
      ],
      lit(theme, '#a8332a'),
    ),
  );
  parts.push(rect(x - w * 0.08, y - wall * 0.55, w * 0.16, wall * 0.55, lit(theme, '#5a3a24')));
  for (const dx of [-0.3, 0.3]) parts.push(rect(x + w * dx - w * 0.08, y - wall * 0.78, w * 0.16, wall * 0.3, windows));
  return { body: parts.join(''), box: box(x - w * 0.58, y - wall - roof, w * 1.16, wall + roof) };
};

const tree: Shape = (theme, frame, rnd, at) => {
  const u = frame.unit;
  const h = u * 0.36;
  const r = u * 0.12;
  const { x, y } = at;
  // Brighter than any land's trees, so it stands out even at the edge of a forest.
  const leaf = lit(theme, theme.terrain === 'snow' ? '#2f6e3a' : '#6fb23e');
  const light = lit(theme, theme.terrain === 'snow' ? '#4f9a5a' : '#9bd35a');
  const parts = at.rock ? [rock(theme, at, r * 0.6, u)] : [];
  parts.push(rect(x - u * 0.018, y - h * 0.5, u * 0.036, h * 0.5, lit(theme, '#5b3b22')));
  const cy = y - h + r;
  parts.push(`<circle cx="${f(x)}" cy="${f(cy)}" r="${f(r)}" fill="${leaf}"/>`);
  parts.push(`<circle cx="${f(x - r * 0.55)}" cy="${f(cy + r * 0.35)}" r="${f(r * 0.7)}" fill="${leaf}"/>`);
  parts.push(`<circle cx="${f(x + r * 0.55)}" cy="${f(cy + r * 0.3)}" r="${f(r * 0.72)}" fill="${leaf}"/>`);
  parts.push(
    `<circle cx="${f(x - r * 0.25 + rnd.range(-1, 1) * r * 0.1)}" cy="${f(cy - r * 0.3)}" r="${f(r * 0.45)}" ` +
      `fill="${light}" fill-opacity="0.8"/>`,
  );
  return { body: parts.join(''), box: box(x - r * 1.27, y - h, r * 2.54, h) };
};

const car: Shape = (theme, frame, _rnd, at) => {
  const u = frame.unit;
  const w = u * 0.36;
  const body = u * 0.08;
  const cabin = u * 0.075;
  const { x, y } = at;
  const paint = lit(theme, at.paint ?? '#d7262e');
  const glass = theme.time === 'day' ? '#bfe0f5' : lit(theme, '#8fb3cf');
  const wheel = u * 0.036;
  const parts = at.rock ? [rock(theme, at, w / 2, u)] : [];
  const top = y - wheel - body;
  parts.push(rect(x - w / 2, top, w, body, paint));
  parts.push(
    poly(
      [
        [x - w * 0.3, top],
        [x - w * 0.18, top - cabin],
        [x + w * 0.2, top - cabin],
        [x + w * 0.32, top],
      ],
      paint,
    ),
  );
  parts.push(
    poly(
      [
        [x - w * 0.25, top],
        [x - w * 0.16, top - cabin * 0.8],
        [x + w * 0.18, top - cabin * 0.8],
        [x + w * 0.27, top],
      ],
      glass,
    ),
  );
  for (const dx of [-0.3, 0.3])
    parts.push(`<circle cx="${f(x + w * dx)}" cy="${f(y - wheel)}" r="${f(wheel)}" fill="#15161a"/>`);
  // Headlights after dark.
  if (theme.time !== 'day') parts.push(rect(x + w / 2 - u * 0.02, top + body * 0.2, u * 0.02, body * 0.3, '#fff2b0'));
  return { body: parts.join(''), box: box(x - w / 2, top - cabin, w, body + cabin + wheel) };
};

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
        `<circle cx="${f(at.x + dx * r)}" cy="${f(at.y + dy * r)}" r="${f(rr * r)}" fill="${shade}" fill-opacity="0.4"/>`,
    )
    .join('');
  return {
    body: `<circle cx="${f(at.x)}" cy="${f(at.y)}" r="${f(r)}" fill="${disc}"/>${craters}`,
    box: box(at.x - r, at.y - r, 2 * r, 2 * r),
  };
};

const windmill: Shape = (theme, frame, rnd, at) => {
  const u = frame.unit;
  const h = u * 0.3;
  const blade = u * 0.17;
  const { x, y } = at;
  const parts = at.rock ? [rock(theme, at, u * 0.05, u)] : [];
  parts.push(
    poly(
      [
        [x - u * 0.055, y],
        [x - u * 0.03, y - h],
        [x + u * 0.03, y - h],
        [x + u * 0.055, y],
      ],
      lit(theme, '#efe6d6'),
    ),
  );
  parts.push(
    poly(
      [
        [x - u * 0.045, y - h],
        [x, y - h - u * 0.05],
        [x + u * 0.045, y - h],
      ],
      lit(theme, '#7a3b2a'),
    ),
  );
  const hub: [number, number] = [x, y - h];
  const turn = rnd.range(0, Math.PI / 2);
  const sail = lit(theme, '#5b3d2a');
  for (let k = 0; k < 4; k++) {
    const a = turn + (k * Math.PI) / 2;
    const along = (t: number, side: number): [number, number] => [
      hub[0] + Math.cos(a) * blade * t - Math.sin(a) * u * 0.022 * side,
      hub[1] + Math.sin(a) * blade * t + Math.cos(a) * u * 0.022 * side,
    ];
    parts.push(poly([along(0.15, 0), along(1, 0), along(1, 1), along(0.25, 1)], sail));
  }
  return { body: parts.join(''), box: box(x - blade, y - h - blade, blade * 2, h + blade) };
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
  const stripe = `M${f(x - r * 0.35)},${f(top + r * 0.06)} L${f(x + r * 0.35)},${f(top + r * 0.06)} L${f(x + r * 0.25)},${f(top + r * 2.2)} L${f(x - r * 0.25)},${f(top + r * 2.2)} Z`;
  const basket = rect(x - r * 0.22, top + r * 2.45, r * 0.44, r * 0.3, lit(theme, '#6b4a2b'));
  const ropes = `<path d="M${f(x - r * 0.25)},${f(top + r * 2.2)} L${f(x - r * 0.2)},${f(top + r * 2.45)} M${f(x + r * 0.25)},${f(top + r * 2.2)} L${f(x + r * 0.2)},${f(top + r * 2.45)}" stroke="${dark(theme)}" stroke-width="${f(u * 0.003)}"/>`;
  return {
    body: `<path d="${envelope}" fill="${a}"/><path d="${stripe}" fill="${b}"/>${ropes}${basket}`,
    box: box(x - r, top, 2 * r, r * 2.75),
  };
};

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
function pond(theme: SceneTheme, frame: SceneFrame, _rnd: Random, area: Box): Drawn {
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

export const SHAPES = { lighthouse, boat, house, tree, car, bird, kite, moon, windmill, balloon, mountains, pond };
