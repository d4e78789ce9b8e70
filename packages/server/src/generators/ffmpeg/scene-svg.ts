/**
 * Text-to-video's still: an SVG landscape whose look follows the prompt's words. The same prompt and
 * seed always give the same SVG (and so the same video): every random choice comes from one PRNG
 * seeded by both, drawn in a fixed order.
 *
 * Every layer makes a lone shape translucent with `fill-opacity` / `stroke-opacity`, never
 * `opacity`: librsvg draws each element carrying `opacity` on its own offscreen surface and then
 * composites it, which made rasterising the still most of text-to-video's cost above
 * image-to-video (2112x1188: "stars in space" 1.5 s of CPU with `opacity`, 0.15 s without;
 * "sunset over the ocean" 0.41 s, 0.15 s). For a shape with one paint the picture is the same, to
 * a level or two of rounding on anti-aliased edges. `opacity` stays only on groups (a cloud's puffs).
 */
import { seededRandom, type Random } from './seeded-random.ts';
import { sceneTheme, type SceneTheme } from './scene-theme.ts';
import {
  celestialBody,
  clouds,
  placeCelestial,
  skyGradient,
  stars,
  vignette,
  type Celestial,
  type SceneFrame,
} from './sky-layers.ts';
import { mountains, ridgeLand } from './land-layers.ts';
import { oceanLayer } from './ocean-layer.ts';
import { cityLayer } from './city-layer.ts';
import { spaceLayer } from './space-layer.ts';
import { subjectLayers, type Box, type Subject, type SubjectLayers } from './scene-subjects.ts';

export interface SceneOptions {
  prompt: string;
  seed?: number;
  width: number;
  height: number;
  /**
   * Test hook: the scene with this one thing left out (every random draw made as usual, so all else
   * is the same), to tell its pixels from the background around it.
   */
  hidden?: Subject;
}

export function buildSceneSvg(options: SceneOptions): string {
  return buildScene(options).svg;
}

/**
 * The scene's SVG and where each everyday thing the prompt names was drawn (scene-subjects.ts):
 * the boxes are the test hook that checks each named thing is really there.
 */
export function buildScene({ prompt, seed = 0, width, height, hidden }: SceneOptions): {
  svg: string;
  subjects: SubjectLayers['boxes'];
} {
  const rnd = seededRandom(prompt, seed);
  const theme = sceneTheme(prompt, rnd, seed);
  const frame: SceneFrame = {
    width,
    height,
    horizonY: Math.round(height * theme.horizon),
    unit: Math.min(width, height),
  };
  const defs: string[] = [];
  const body: string[] = [];
  const add = (layer: { defs: string; body: string } | string) => {
    if (typeof layer === 'string') body.push(layer);
    else {
      defs.push(layer.defs);
      body.push(layer.body);
    }
  };
  add(skyGradient(theme, frame));
  add(stars(theme, frame, rnd));
  const light = placeCelestial(theme, frame, rnd);
  if (light) add(celestialBody(theme, frame, light));
  add(clouds(theme, frame, rnd));
  const land = landFor(theme, frame, rnd, light, hidden);
  const subjects = subjectLayers({
    ...{ prompt, seed, theme, frame, light, hidden },
    ...('box' in land ? { mountains: land.box as Box } : {}),
  });
  add(subjects.back);
  add(land);
  add({ defs: subjects.defs, body: subjects.front });
  add(vignette(frame));
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
    `<defs>${defs.join('')}</defs>${body.join('')}</svg>`;
  return { svg, subjects: subjects.boxes };
}

function landFor(theme: SceneTheme, frame: SceneFrame, rnd: Random, light?: Celestial, hidden?: Subject) {
  switch (theme.terrain) {
    case 'ocean':
      return oceanLayer(theme, frame, rnd, light, hidden === 'water');
    case 'city':
      return cityLayer(theme, frame, rnd);
    case 'space':
      return spaceLayer(theme, frame, rnd);
    case 'mountains':
      return mountains(theme, frame, rnd, hidden === 'mountains');
    default:
      return ridgeLand(theme, frame, rnd);
  }
}
