/**
 * Everyday things a prompt names, drawn into its scene: a lighthouse, a boat, a house, a tree,
 * mountains, a car, a bird, a kite, the moon, water (a pond, a lake, a river, the sea), a windmill,
 * a hot-air balloon. Keyword tables, like the rest of the scene: a person can see why a prompt drew
 * what it drew (docs/renderer.md lists the words).
 *
 * Each thing is placed by a layout (the one named first in the middle, the others to the sides; sky
 * things away from the sun or moon), drawn big enough to read (at least about 2.5 % of the frame)
 * and in colours that stand out from what is around it. Its own random stream (`subjects\0prompt`),
 * so a prompt that names none of them draws exactly the scene it drew before.
 */
import { mix } from './color.ts';
import { seededRandom, type Random } from './seeded-random.ts';
import type { SceneTheme } from './scene-theme.ts';
import { f, type Celestial, type SceneFrame } from './sky-layers.ts';
import { namedSubjects, type Subject } from './subject-words.ts';
import { SHAPES, type Box, type Drawn, type Placement } from './subject-shapes.ts';

export type { Subject } from './subject-words.ts';
export type { Box } from './subject-shapes.ts';

const SKY = ['bird', 'kite', 'balloon'] as const;
const GROUND = ['lighthouse', 'house', 'tree', 'car', 'windmill'] as const;
const inSky = (s: Subject): s is (typeof SKY)[number] => (SKY as readonly Subject[]).includes(s);
const onGround = (s: Subject): s is (typeof GROUND)[number] => (GROUND as readonly Subject[]).includes(s);
/** A colour the prompt names paints its kite, car, balloon or boat's hull: "a red kite" is red. */
const PAINTS: Array<[RegExp, string]> = [
  [/\b(?:red|crimson|scarlet)\b/, '#d7262e'],
  [/\borange\b/, '#f08a1c'],
  [/\b(?:yellow|gold(?:en)?)\b/, '#f2c81e'],
  [/\b(?:green|emerald)\b/, '#34a853'],
  [/\b(?:blue|azure)\b/, '#2f6fe0'],
  [/\b(?:purple|violet)\b/, '#7a3fd0'],
  [/\b(?:pink|magenta)\b/, '#e85aa8'],
];

export interface SubjectLayers {
  /** Drawn behind the land: mountains named in a scene of other land. */
  back: string;
  /** Drawn in front of the land and water. */
  front: string;
  defs: string;
  /** Where each named subject was drawn, in canvas pixels (the test hook of docs/renderer.md). */
  boxes: Array<{ subject: Subject; box: Box }>;
}

export interface SubjectScene {
  prompt: string;
  seed: number;
  theme: SceneTheme;
  frame: SceneFrame;
  light?: Celestial;
  /** The box of the land layer's own mountains, when the terrain is mountains. */
  mountains?: Box;
  /** Drawn but not shown (scene-svg.ts's test hook). */
  hidden?: Subject;
}

export function subjectLayers(scene: SubjectScene): SubjectLayers {
  const { theme, frame } = scene;
  const named = namedSubjects(scene.prompt);
  const rnd = seededRandom(`subjects\u0000${scene.prompt}`, scene.seed);
  const out: SubjectLayers = { back: '', front: '', defs: '', boxes: [] };
  const add = (subject: Subject, drawn: Drawn, where: 'back' | 'front' = 'front') => {
    if (subject !== scene.hidden) out[where] += drawn.body;
    out.defs += drawn.defs ?? '';
    out.boxes.push({ subject, box: drawn.box });
  };
  const pond = theme.terrain !== 'ocean' && named.includes('water');
  const water = waterArea(scene, pond);
  if (named.includes('mountains')) {
    if (scene.mountains) out.boxes.push({ subject: 'mountains', box: scene.mountains });
    else add('mountains', SHAPES.mountains(theme, frame, rnd, placeAt(frame, 0.5, frame.horizonY)), 'back');
  }
  if (named.includes('water')) {
    if (pond) add('water', SHAPES.pond(theme, water));
    else out.boxes.push({ subject: 'water', box: water });
  }
  if (named.includes('moon')) add('moon', SHAPES.moon(theme, frame, rnd, moonPlace(scene)));
  if (theme.terrain === 'ocean' && named.some((s) => onGround(s) && s !== 'lighthouse')) out.front += shore(scene, rnd);
  const skyX = skySlots(scene);
  const groundX = [0.5 + rnd.range(-0.05, 0.05), 0.24, 0.76, 0.37, 0.63];
  const text = scene.prompt.toLowerCase();
  const paint = PAINTS.find(([re]) => re.test(text))?.[1];
  let sky = 0;
  let ground = 0;
  for (const subject of named) {
    if (inSky(subject)) {
      const y = frame.horizonY * (subject === 'balloon' ? 0.42 : 0.36) + rnd.range(-0.04, 0.04) * frame.height;
      add(subject, SHAPES[subject](theme, frame, rnd, { ...placeAt(frame, skyX[sky++ % skyX.length], y), paint }));
    } else if (onGround(subject)) {
      const x = groundX[ground++ % groundX.length];
      add(subject, SHAPES[subject](theme, frame, rnd, { ...groundPlace(scene, subject, x, pond), paint }));
    } else if (subject === 'boat') {
      // On the water: the pond's middle, or out at sea beside the things on the shore.
      const x = pond ? water.x + water.width / 2 : named.some(onGround) ? 0.72 : 0.5;
      const y = pond ? water.y + water.height * 0.55 : frame.horizonY + (frame.height - frame.horizonY) * 0.42;
      const at = { ...placeAt(frame, pond ? x / frame.width : x, y), paint };
      add('boat', SHAPES.boat(theme, frame, rnd, at, scene.prompt));
    }
  }
  return out;
}

const placeAt = (frame: SceneFrame, x: number, y: number): Placement => ({ x: x * frame.width, y });

/** The sea from the horizon down, or a pond in the land's middle distance. */
function waterArea({ frame }: SubjectScene, pond: boolean): Box {
  const land = frame.height - frame.horizonY;
  if (!pond) return { x: 0, y: frame.horizonY, width: frame.width, height: land };
  const width = Math.min(frame.width * 0.62, frame.unit * 1.1);
  const height = Math.max(land * 0.34, frame.unit * 0.16);
  return { x: (frame.width - width) / 2, y: frame.horizonY + land * 0.42, width, height };
}

/**
 * Ground things stand on the land's middle distance, beside a pond rather than in it. By the sea a
 * lighthouse stands on a rock out in the water; anything else on a shore in the foreground.
 */
function groundPlace(scene: SubjectScene, subject: Subject, x: number, pond: boolean): Placement {
  const { frame, theme } = scene;
  const land = frame.height - frame.horizonY;
  if (theme.terrain === 'ocean') {
    if (subject === 'lighthouse') return { x: x * frame.width, y: frame.horizonY + land * 0.3, rock: true };
    return { x: x * frame.width, y: frame.horizonY + land * 0.72 };
  }
  const side = pond && Math.abs(x - 0.5) < 0.15 ? (x < 0.5 ? 0.2 : 0.8) : x;
  return { x: side * frame.width, y: frame.horizonY + land * (pond ? 0.5 : 0.45) };
}

/** The shore ground things stand on by the sea, across the foreground. */
function shore({ frame, theme }: SubjectScene, rnd: Random): string {
  const land = frame.height - frame.horizonY;
  const top = frame.horizonY + land * 0.66;
  const pts: string[] = [];
  for (let i = 0; i <= 24; i++) {
    const x = (i / 24) * frame.width * 1.04 - frame.width * 0.02;
    pts.push(`${f(x)},${f(top + Math.sin(i * 0.7 + rnd.range(0, 0.5)) * land * 0.025)}`);
  }
  const fill = mix(theme.ground[2] ?? '#4f8040', '#000000', theme.time === 'day' ? 0 : 0.35);
  const [x0, x1, bottom] = [f(-frame.width * 0.02), f(frame.width * 1.02), frame.height + 2];
  return `<path d="M${x0},${bottom} L${pts.join(' L')} L${x1},${bottom} Z" fill="${fill}"/>`;
}

function moonPlace({ frame, light }: SubjectScene): Placement {
  if (light) return { x: light.x, y: Math.max(frame.unit * 0.16, light.y) };
  return { x: frame.width * 0.68, y: frame.horizonY * 0.38 };
}

/** Sky slots as fractions of the width, well apart; a slot in front of the sun or moon goes last. */
function skySlots({ frame, light }: SubjectScene): number[] {
  const at = light ? light.x / frame.width : -1;
  const slots = [0.25, 0.75, 0.5, 0.12, 0.88];
  return [...slots.filter((x) => Math.abs(x - at) >= 0.15), ...slots.filter((x) => Math.abs(x - at) < 0.15)];
}
