/**
 * What an edit prompt asks of the built-in renderer, read from its words: a colour look, a blur,
 * a change of timing and a crop, each at most once, combined ("black and white, in slow motion").
 * Keyword tables, like the scenes: predictable, and a person can see why a prompt did what it did.
 *
 * Timing keeps the input's length (an edit never changes it; the engine checks):
 *   - slow motion by N: the first 1/N of the clip, stretched N times (in-between frames blended);
 *   - speed up by N ("time-lapse", "2x speed"): the whole clip at N times, played N times over;
 *   - reverse: the clip backwards.
 */
import { earliestMatch } from './prompt-words.ts';
import { isEmptySceneEdit, KNOWN_SCENE_EDITS, parseSceneEdit, type SceneEdit } from './scene-edits.ts';

export type ColourLook = 'black-and-white' | 'sepia' | 'warm' | 'cool' | 'vintage' | 'teal-orange' | 'invert';
export type Adjustment = 'vivid' | 'muted' | 'brighter' | 'darker' | 'contrast';
export type Timing = { kind: 'reverse' } | { kind: 'slow'; factor: number } | { kind: 'fast'; factor: number };

export interface EditPlan {
  look?: ColourLook;
  adjust: Adjustment[];
  /** Gaussian blur strength as a share of the picture's short side. */
  blur?: number;
  timing?: Timing;
  /** Width over height of a centre crop. */
  crop?: number;
  /** Time of day, season and weather (scene-edits.ts). */
  scene: SceneEdit;
}

/** The edits this renderer knows, for the message of a prompt that names none. */
export const KNOWN_EDITS =
  'colour grades (warm, cool, vintage, teal and orange, sepia), black and white, blur, slow motion, ' +
  'speed up or time-lapse, reverse, crop to a ratio (e.g. "crop to 9:16" or "make it square"), and ' +
  KNOWN_SCENE_EDITS;

const W = String.raw`[\s-]*`;
const LOOKS: Array<[ColourLook, RegExp]> = [
  [
    'black-and-white',
    new RegExp(
      String.raw`\b(?:black${W}(?:and|&|n)${W}white|b${W}&${W}w|b/w|monochrome|greyscale|grayscale|` +
        String.raw`desaturate${W}(?:it${W})?(?:completely|fully)|no${W}colou?rs?)\b`,
    ),
  ],
  ['sepia', /\bsepia\b/],
  [
    'teal-orange',
    new RegExp(
      String.raw`\b(?:teal${W}(?:and|&)?${W}orange|orange${W}(?:and|&)${W}teal|blockbuster${W}(?:look|grade)?)\b`,
    ),
  ],
  ['vintage', new RegExp(String.raw`\b(?:vintage|retro|old${W}film|film${W}look|70s|1970s|faded${W}film|nostalgic)\b`)],
  ['warm', new RegExp(String.raw`\b(?:warm(?:er)?|golden${W}(?:look|grade|tone|tint)|sunny${W}(?:look|grade))\b`)],
  // Bare "cool" is as often praise as colour ("make it look cool"): it needs a colour word.
  [
    'cool',
    new RegExp(
      String.raw`\b(?:cooler|cool${W}(?:tones?|colou?rs?|look|grade|tint|palette|temperature)|cold(?:er)?|` +
        String.raw`icy${W}(?:look|grade|tones?)|blue${W}(?:tint|tones?|grade))\b`,
    ),
  ],
  ['invert', new RegExp(String.raw`\b(?:invert(?:ed)?${W}(?:the${W})?colou?rs?|negative|inverted)\b`)],
];
const ADJUSTMENTS: Array<[Adjustment, RegExp]> = [
  ['vivid', /\b(?:vivid|saturated|more saturation|punchy|more colou?rful|boost (?:the )?colou?rs?)\b/],
  ['muted', /\b(?:muted|desaturated?|washed[\s-]out|less saturat(?:ed|ion)|pastel)\b/],
  ['brighter', /\b(?:bright(?:er|en)|lighter|lighten|more light)\b/],
  ['darker', /\b(?:dark(?:er|en)|moodier|dimmer|less light)\b/],
  ['contrast', /\b(?:(?:more|high|higher|increase(?:d)?|boost(?:ed)?) contrast|contrasty)\b/],
];
const BLUR = new RegExp(
  String.raw`\b(?:blur(?:s|red|ry)?|out${W}of${W}focus|defocus(?:ed)?|soft${W}focus|unfocused|dreamy${W}haze)\b`,
);
const BLUR_LIGHT = new RegExp(
  String.raw`\b(?:slight(?:ly)?|subtle|gentle|light|little|soft)${W}(?:\w+${W}){0,1}(?:blur|focus)`,
);
const BLUR_HEAVY = new RegExp(
  String.raw`\b(?:heavy|heavily|strong(?:ly)?|very|extreme(?:ly)?|lots${W}of|totally|` +
    String.raw`completely)${W}(?:\w+${W}){0,1}(?:blur|out${W}of${W}focus)|\bblur\w*${W}(?:\w+${W}){0,2}(?:heavily|` +
    String.raw`strongly|a${W}lot)\b`,
);
const REVERSE = new RegExp(
  String.raw`\b(?:revers(?:e|ed|ing)|backwards?|rewind(?:ing|s)?|play${W}it${W}back(?:wards)?)\b`,
);
const SLOW = new RegExp(
  String.raw`\b(?:slow${W}mo(?:tion)?|slo${W}mo|slowed${W}down|slow(?:s|ing)?${W}(?:it${W})?down|half${W}speed|` +
    String.raw`quarter${W}speed|(?:\d(?:\.\d+)?)${W}x${W}slower|0?\.(?:5|25)${W}x|slower)\b`,
);
const FAST = new RegExp(
  String.raw`\b(?:speed(?:s|ed)?${W}(?:it${W})?up|sped${W}up|fast${W}?forward|time${W}?lapse|hyper${W}?lapse|` +
    String.raw`faster|double${W}speed|triple${W}speed|\d${W}x${W}(?:speed|faster)|at${W}\d${W}x)\b`,
);
const CROP_WORDS = new RegExp(
  String.raw`\b(?:crop(?:s|ped|ping)?|reframe(?:d)?|aspect|ratio|make${W}it|turn${W}it${W}into|` +
    String.raw`convert${W}(?:it${W})?to|as${W}an?)\b`,
);
const RATIO = /\b(\d{1,2}(?:\.\d{1,2})?)\s*[:x×/]\s*(\d{1,2}(?:\.\d{1,2})?)\b/;
const RATIO_WORDS: Array<[number, RegExp]> = [
  [1, /\bsquare\b/],
  [9 / 16, /\b(?:vertical|portrait|tiktok|reels?|stories|phone[\s-]screen)\b/],
  [16 / 9, /\b(?:landscape|widescreen|horizontal)\b/],
  [2.39, /\b(?:cinemascope|anamorphic|letterbox(?:ed)?)\b/],
];

/** The edits the prompt names; an empty plan when it names none. */
export function parseEdit(prompt: string): EditPlan {
  const text = prompt.toLowerCase();
  const plan: EditPlan = {
    adjust: ADJUSTMENTS.filter(([, re]) => re.test(text)).map(([a]) => a),
    scene: parseSceneEdit(text),
  };
  const look = earliestMatch(text, LOOKS);
  if (look) plan.look = look;
  if (BLUR.test(text)) plan.blur = BLUR_HEAVY.test(text) ? 0.025 : BLUR_LIGHT.test(text) ? 0.005 : 0.014;
  const timing = parseTiming(text);
  if (timing) plan.timing = timing;
  const crop = parseCrop(text);
  if (crop) plan.crop = crop;
  return plan;
}

export function isEmptyPlan(plan: EditPlan): boolean {
  return (
    !plan.look &&
    plan.adjust.length === 0 &&
    plan.blur === undefined &&
    !plan.timing &&
    plan.crop === undefined &&
    isEmptySceneEdit(plan.scene)
  );
}

function parseTiming(text: string): Timing | undefined {
  const options: Array<[Timing['kind'], number]> = [
    ['reverse', text.search(REVERSE)],
    ['slow', text.search(SLOW)],
    ['fast', text.search(FAST)],
  ];
  const found = options.filter(([, at]) => at >= 0).sort((a, b) => a[1] - b[1])[0];
  if (!found) return undefined;
  if (found[0] === 'reverse') return { kind: 'reverse' };
  const rest = text.slice(found[1]);
  if (found[0] === 'slow') {
    const factor = /quarter|0?\.25\s*x|super[\s-]*slow/.test(text)
      ? 4
      : Number(/(\d)(?:\.\d+)?\s*x\s*slower/.exec(rest)?.[1] ?? 2);
    return { kind: 'slow', factor: clampFactor(factor) };
  }
  const named = /triple/.test(rest)
    ? 3
    : /quadruple/.test(rest)
      ? 4
      : Number(/(\d)[\s-]*x[\s-]*(?:speed|faster)|at[\s-]*(\d)[\s-]*x/.exec(text)?.slice(1).find(Boolean) ?? 2);
  return { kind: 'fast', factor: clampFactor(named) };
}

function parseCrop(text: string): number | undefined {
  const words = CROP_WORDS.test(text);
  const ratio = RATIO.exec(text);
  // "2x speed" is not a ratio: a ratio needs two sides, and "x" only counts next to a crop word.
  if (ratio && (ratio[0].includes(':') || words)) {
    const value = Number(ratio[1]) / Number(ratio[2]);
    if (value >= 0.25 && value <= 4) return value;
  }
  if (!words) return undefined;
  return RATIO_WORDS.find(([, re]) => re.test(text))?.[0];
}

const clampFactor = (n: number) => Math.min(8, Math.max(2, Math.round(Number.isFinite(n) ? n : 2)));
