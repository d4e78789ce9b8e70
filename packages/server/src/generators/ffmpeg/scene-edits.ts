/**
 * Everyday edits of any video, an upload included: the time of day (night, dusk, dawn), the season
 * (autumn, winter, spring) and the weather (snow, rain, fog). Each is a colour grade in ffmpeg
 * filters (the bundled 4.1: colorchannelmixer, colorbalance, eq, lutrgb), and autumn, snow and rain
 * also a particle layer drawn into every frame (scene-particles.ts: falling leaves, snowflakes,
 * rain streaks). What each does to the mean colour is in docs/renderer.md, and
 * test/generators/ffmpeg-scene-edits.test.ts measures it.
 */
import { earliestMatch } from './prompt-words.ts';
import type { ParticleKind } from './particle-specs.ts';

export type TimeOfDayEdit = 'night' | 'dusk' | 'dawn';
export type Season = 'autumn' | 'winter' | 'spring';
export type Weather = 'snow' | 'rain' | 'fog';

export interface SceneEdit {
  time?: TimeOfDayEdit;
  season?: Season;
  weather?: Weather;
}

const TIMES: Array<[TimeOfDayEdit, RegExp]> = [
  ['night', /\b(?:night(?:time|fall)?|midnight|moonlit|nocturnal|after dark)\b/],
  ['dusk', /\b(?:dusk|sunset|sundown|evening|twilight|golden hour)\b/],
  ['dawn', /\b(?:dawn|sunrise|daybreak|first light|early morning)\b/],
];
const SEASONS: Array<[Season, RegExp]> = [
  ['autumn', /\b(?:autumn(?:al)?|fall (?:colou?rs|foliage|season)|in (?:the )?fall)\b/],
  ['winter', /\b(?:winter(?:time|y)?|wintry)\b/],
  ['spring', /\bspring(?:time)?\b/],
];
const WEATHERS: Array<[Weather, RegExp]> = [
  ['snow', /\b(?:snow(?:s|y|ing|fall|flakes?)?|blizzard)\b/],
  ['rain', /\b(?:rain(?:s|y|ing)?|drizzle|downpour|storm(?:s|y)?)\b/],
  ['fog', /\b(?:fog(?:gy)?|mist(?:y)?|hazy)\b/],
];

/** The edits list of edit-plan.ts's message. */
export const KNOWN_SCENE_EDITS =
  'the time of day (night, dusk, dawn), the season (autumn, winter, spring) and the weather (snow, rain, fog)';

export function parseSceneEdit(text: string): SceneEdit {
  const edit: SceneEdit = {};
  const time = earliestMatch(text, TIMES);
  const season = earliestMatch(text, SEASONS);
  const weather = earliestMatch(text, WEATHERS);
  if (time) edit.time = time;
  if (season) edit.season = season;
  if (weather) edit.weather = weather;
  return edit;
}

export const isEmptySceneEdit = (e: SceneEdit) => !e.time && !e.season && !e.weather;

const GRADES: Record<TimeOfDayEdit | Season | Weather, string[]> = {
  // Moonlight: about half the light, most of it in blue, colours faded.
  night: ['colorchannelmixer=rr=.36:rg=.04:gg=.46:gb=.06:bb=.74:bg=.08', 'eq=saturation=.7:contrast=1.04'],
  // Low, warm light: less of it, and red over blue.
  dusk: ['colorchannelmixer=rr=.94:rg=.08:gg=.64:bb=.5', 'colorbalance=rh=.06:bh=-.05'],
  // Soft rose-gold light: red over blue, a little less contrast.
  dawn: ['colorchannelmixer=rr=1:rg=.04:gg=.9:bb=.84', 'colorbalance=rs=.05:bs=.02:rm=.04', 'eq=contrast=.94'],
  // Greens turn to gold and rust: red up, blue down.
  autumn: ['colorchannelmixer=rr=1.02:rg=.22:gg=.82:bb=.7', 'eq=saturation=1.08'],
  // Cold and pale: bluer, less saturated, a little brighter.
  winter: ['colorchannelmixer=rr=.92:gg=.98:bb=1.06', 'eq=saturation=.55:brightness=.04'],
  // Fresh: a touch brighter and greener, more saturated.
  spring: ['colorbalance=gs=.04:gm=.08:rm=-.02:bm=-.02', 'eq=saturation=1.25:brightness=.03'],
  // Overcast light for falling snow: brighter and colder; the flakes add to it.
  snow: ['eq=saturation=.75:brightness=.05', 'colorbalance=bs=.04:bm=.03'],
  // Under rain clouds: darker and greyer.
  rain: ['eq=saturation=.65:brightness=-.06:contrast=.92', 'colorbalance=bs=.03'],
  // Everything towards a pale grey: contrast halved.
  fog: ["lutrgb=r='val*.5+112':g='val*.5+116':b='val*.5+120'"],
};

/** The grades of an edit, in the order time, season, weather. */
export function sceneEditFilters(edit: SceneEdit): string[] {
  return [edit.time, edit.season, edit.weather].flatMap((w) => (w ? GRADES[w] : []));
}

/** The particle layer an edit adds, if any: falling leaves in autumn, snowflakes, rain. */
export function sceneEditParticles(edit: SceneEdit): ParticleKind | undefined {
  if (edit.weather === 'snow' || edit.weather === 'rain') return edit.weather;
  return edit.season === 'autumn' ? 'leaves' : undefined;
}
