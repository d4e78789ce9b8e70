/**
 * What a prompt's words say about a scene: the time of day, the kind of land, and the colours that
 * follow. Keyword tables rather than cleverness: predictable, and a person can see why a prompt
 * looks the way it does. Prompts that name nothing known get a palette derived from their hash.
 */
import { hsl, mix, shiftHue } from './color.ts';
import type { Random } from './seeded-random.ts';
import { earliestMatch } from './prompt-words.ts';
import { firstSubject, namedSubjects, POND_WORDS } from './subject-words.ts';

export type TimeOfDay = 'day' | 'sunset' | 'fire' | 'night';
export type Terrain = 'ocean' | 'forest' | 'desert' | 'snow' | 'city' | 'mountains' | 'hills' | 'space';

export interface SceneTheme {
  time: TimeOfDay;
  terrain: Terrain;
  /** Top, middle and horizon colour of the sky gradient. */
  sky: [string, string, string];
  /** Sun or moon disc, and its halo. */
  light: string;
  glow: string;
  celestial: 'sun' | 'moon' | 'none';
  /** Land layers from the farthest (hazy) to the nearest (darkest). */
  ground: string[];
  /** Water near the horizon, then near the viewer. */
  water: [string, string];
  /** Highlights: wave crests, lit windows, snow caps. */
  accent: string;
  stars: boolean;
  /** Horizon height as a fraction of the frame, from the top. */
  horizon: number;
}

const TIME_WORDS: Array<[TimeOfDay, RegExp]> = [
  ['fire', /\b(?:fire|flames?|burning|blaze|inferno|volcano|volcanic|lava|embers?)\b/],
  ['night', /\b(?:night|midnight|moon(?:lit|light)?|stars?|starry|space|galaxy|cosmos|cosmic|nebula|dark sky)\b/],
  ['sunset', /\b(?:sunset|sunrise|dusk|dawn|twilight|golden hour|evening|sundown)\b/],
];
const TERRAIN_WORDS: Array<[Terrain, RegExp]> = [
  ['space', /\b(?:space|outer space|galaxy|cosmos|nebula|planets?|orbit|astronaut)\b/],
  ['city', /\b(?:city|cities|town|skyline|skyscrapers?|street|urban|downtown|buildings?|metropolis)\b/],
  ['ocean', /\b(?:ocean|sea|seas|water|beach|waves?|lake|river|coast|shore|bay|harbou?r|surf)\b/],
  ['snow', /\b(?:snow|snowy|winter|ice|icy|arctic|glaciers?|frozen|blizzard|frost)\b/],
  ['desert', /\b(?:desert|dunes?|sand|sandy|sahara|arid|canyon)\b/],
  ['forest', /\b(?:forest|jungle|woods|woodland|trees?|rainforest|pines?|grove)\b/],
  ['mountains', /\b(?:mountains?|peaks?|alps|alpine|summit|cliffs?|volcano)\b/],
  ['hills', /\b(?:hills?|meadows?|fields?|valley|countryside|grass(?:land)?|prairie)\b/],
];
const COLOUR_HUES: Array<[RegExp, number]> = [
  [/\b(?:red|crimson|scarlet)\b/, 2],
  [/\borange\b/, 26],
  [/\b(?:gold|golden|amber)\b/, 42],
  [/\byellow\b/, 54],
  [/\b(?:green|emerald)\b/, 130],
  [/\b(?:teal|turquoise|cyan)\b/, 178],
  [/\b(?:blue|azure|sapphire)\b/, 215],
  [/\b(?:purple|violet|lavender)\b/, 272],
  [/\b(?:pink|magenta|rose)\b/, 325],
];

const SKIES: Record<TimeOfDay, [string, string, string]> = {
  day: ['#2f6fbf', '#74a9da', '#d3e6f2'],
  sunset: ['#251a4a', '#9c3a66', '#ffb066'],
  fire: ['#160707', '#7a1c0c', '#ff7a1f'],
  night: ['#03081a', '#0b1838', '#2c4672'],
};
const GROUNDS: Record<Exclude<Terrain, 'ocean'>, string[]> = {
  forest: ['#7da58a', '#44805a', '#265c3d', '#123322'],
  desert: ['#e9c893', '#dcab66', '#c78f4b', '#a46b34'],
  snow: ['#c4d4e6', '#dbe6f1', '#edf3f9', '#ffffff'],
  city: ['#9aa4b1', '#6b7786', '#404a57', '#222932'],
  mountains: ['#94a9bf', '#64809d', '#3f5f4b', '#2a4535'],
  hills: ['#a8c585', '#74a35a', '#4f8040', '#33602c'],
  space: ['#3a3f6b', '#5a4d8f', '#8a6fb8', '#c9a0dc'],
};

/**
 * The theme of a prompt. Seed 0 (or none) is the prompt's canonical look; any other seed varies
 * what the words leave open: the time of day when none is named, the palette's hue and light, and
 * where the horizon sits, so another seed gives another scene of the same prompt.
 */
export function sceneTheme(prompt: string, rnd: Random, seed = 0): SceneTheme {
  const text = prompt.toLowerCase();
  const named = TIME_WORDS.find(([, re]) => re.test(text))?.[0];
  // The land named first is usually the subject: "a lake in a forest" is water, "a forest lake" trees.
  const terrain = earliestMatch(text, TERRAIN_WORDS) ?? subjectTerrain(text);
  if (!named && !terrain) return hashTheme(text, rnd);
  const vary = seed !== 0;
  const time: TimeOfDay = terrain === 'space' ? 'night' : (named ?? (vary ? pickTime(rnd) : 'day'));
  const theme = keywordTheme(time, terrain ?? 'hills', rnd);
  return vary ? varied(theme, rnd) : theme;
}

/**
 * The land a named thing implies when no land is named: a boat or a lighthouse is by the sea (a
 * boat on a pond is in a meadow), anything else stands in hills. Undefined when nothing is named.
 */
function subjectTerrain(text: string): Terrain | undefined {
  const first = firstSubject(text);
  if (!first) return undefined;
  if (POND_WORDS.test(text)) return 'hills';
  if (first === 'mountains') return 'mountains';
  return first === 'boat' || first === 'lighthouse' || namedSubjects(text).includes('water') ? 'ocean' : 'hills';
}

function pickTime(rnd: Random): TimeOfDay {
  const x = rnd.next();
  return x < 0.55 ? 'day' : x < 0.8 ? 'sunset' : 'night';
}

/** Turns the whole palette by one hue and one light, so it stays coherent; moves the horizon. */
function varied(theme: SceneTheme, rnd: Random): SceneTheme {
  const turn = rnd.range(-24, 24);
  const light = rnd.range(0.86, 1.12);
  const shift = (c: string) => shiftHue(c, turn, light);
  return {
    ...theme,
    sky: theme.sky.map(shift) as SceneTheme['sky'],
    ground: theme.ground.map((c) => shiftHue(c, turn * 0.6, light)),
    water: theme.water.map(shift) as SceneTheme['water'],
    glow: shift(theme.glow),
    horizon:
      theme.terrain === 'space'
        ? theme.horizon
        : Math.min(0.78, Math.max(0.45, theme.horizon + rnd.range(-0.06, 0.06))),
  };
}

function keywordTheme(time: TimeOfDay, terrain: Terrain, rnd: Random): SceneTheme {
  const sky = skyFor(time, terrain);
  const base = terrain === 'ocean' ? GROUNDS.hills : GROUNDS[terrain];
  // Far layers fade into the horizon (aerial perspective); at dusk and night the land turns to silhouette.
  const shade = { day: ['#000000', 0], sunset: ['#241433', 0.62], fire: ['#1a0706', 0.7], night: ['#050a17', 0.72] }[
    time
  ];
  const ground = base.map((c, i) => {
    const lit = mix(c, shade[0] as string, (shade[1] as number) * (0.55 + 0.15 * i));
    return mix(lit, sky[2], Math.max(0, 0.5 - 0.17 * i) * (time === 'day' ? 0.6 : 0.8));
  });
  const water: [string, string] = {
    day: ['#5c97c8', '#0e3d69'],
    sunset: [mix(sky[2], '#4a2d63', 0.45), '#1a1338'],
    fire: [mix(sky[2], '#3a1010', 0.5), '#140505'],
    night: ['#132848', '#02060f'],
  }[time] as [string, string];
  const lights = {
    day: ['#fffbe8', '#fff1c0', 'sun'],
    sunset: ['#ffcf7a', '#ff8a3d', 'sun'],
    fire: ['#ffd27a', '#ff4d12', 'sun'],
    night: ['#f4f1e4', '#9db3d6', 'moon'],
  }[time];
  const horizons: Record<Terrain, number> = {
    ocean: 0.58,
    forest: 0.6,
    desert: 0.62,
    snow: 0.6,
    city: 0.72,
    mountains: 0.64,
    hills: 0.62,
    space: 1,
  };
  return {
    time,
    terrain,
    sky,
    ground,
    water,
    light: lights[0],
    glow: lights[1],
    celestial: terrain === 'space' ? 'none' : (lights[2] as 'sun' | 'moon'),
    accent: time === 'day' ? '#f4fbff' : time === 'night' ? '#ffd98a' : '#ffd08a',
    stars: time === 'night',
    horizon: horizons[terrain] + rnd.range(-0.03, 0.03),
  };
}

function skyFor(time: TimeOfDay, terrain: Terrain): [string, string, string] {
  const sky = SKIES[time];
  if (time !== 'day') return sky;
  if (terrain === 'snow') return ['#7fa6d1', '#bcd4ea', '#f0f5f9'];
  if (terrain === 'desert') return ['#3f86cf', '#94c0e2', '#f3ddb4'];
  if (terrain === 'city') return ['#5d7593', '#93a6bb', '#d6dbe0'];
  return sky;
}

/** No known words: a coherent palette from one hue (a named colour's, or the prompt's hash). */
function hashTheme(text: string, rnd: Random): SceneTheme {
  const named = COLOUR_HUES.find(([re]) => re.test(text))?.[1];
  const h = named ?? rnd.range(0, 360);
  const far = h + rnd.range(120, 170);
  return {
    time: 'day',
    terrain: 'hills',
    sky: [hsl(h, 0.45, 0.3), hsl(h + 18, 0.5, 0.56), hsl(h + 38, 0.65, 0.82)],
    light: hsl(h + 45, 0.9, 0.93),
    glow: hsl(h + 35, 0.8, 0.8),
    celestial: 'sun',
    ground: [0.62, 0.46, 0.32, 0.2].map((l, i) => hsl(far + i * 8, 0.22 + i * 0.06, l)),
    water: [hsl(h + 10, 0.4, 0.55), hsl(h + 20, 0.5, 0.2)],
    accent: hsl(h + 40, 0.7, 0.9),
    stars: false,
    horizon: 0.6 + rnd.range(-0.04, 0.04),
  };
}
