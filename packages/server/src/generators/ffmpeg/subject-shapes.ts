/**
 * The shapes of scene-subjects.ts: each draws one thing at a placement (x: its centre, y: where it
 * stands or floats) and says its bounding box. Sizes are shares of the frame's short side, so a
 * thing reads the same in portrait and landscape; every box is at least about 2.5 % of the frame.
 * Colours are chosen to stand out from sky, land and water at any time of day: a thing in the
 * foreground is lit (by day) or moonlit and lamp-lit (at night) more than the land behind it.
 */
import type { Random } from './seeded-random.ts';
import type { SceneTheme } from './scene-theme.ts';
import { f, type SceneFrame } from './sky-layers.ts';
import { box, dark, lit, poly, rect, rock, type Drawn, type Placement, type Shape } from './shape-kit.ts';
import { SKY_SHAPES } from './sky-shapes.ts';
import { LAND_SHAPES } from './land-shapes.ts';

export type { Box, Drawn, Placement } from './shape-kit.ts';

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

export const SHAPES = { lighthouse, boat, house, tree, car, windmill, ...LAND_SHAPES, ...SKY_SHAPES };
