/**
 * What a prompt sounds like, read from its words the way scene-theme.ts reads what it looks like:
 * keyword tables, predictable, so a person can see why a prompt sounds as it does. The sound named
 * first leads; up to two more play under it. A prompt that names nothing audible (an abstract
 * scene, outer space) gets a low music bed.
 */
import type { SoundKind } from './sound-layers.ts';

const W = String.raw`[\s-]*`;
const SOUND_WORDS: Array<[SoundKind, RegExp]> = [
  ['rain', /\b(?:rain\w*|storm\w*|drizzl\w*|downpours?|showers?|thunder\w*|monsoon)\b/],
  ['fire', /\b(?:fire\w*|flames?|campfire|bonfire|burning|blaze|embers?|inferno|torch(?:es)?|crackl\w*)\b/],
  ['surf', /\b(?:oceans?|sea|seas|waves?|surf\w*|beach(?:es)?|shore\w*|coast\w*|tides?|seaside)\b/],
  [
    'traffic',
    /\b(?:city|cities|streets?|traffic|urban|downtown|cars?|highways?|roads?|towns?|metropolis|skyline|skyscrapers?)\b/,
  ],
  ['insects', new RegExp(String.raw`\b(?:crickets?|insects?|cicadas?|fireflies|summer${W}night)\b`)],
  [
    'birds',
    new RegExp(
      String.raw`\b(?:birds?|birdsong|songbirds?|forests?|woods|woodland|jungle|meadows?|gardens?|parks?|trees?|` +
        String.raw`spring|hills?|countryside|valley)\b`,
    ),
  ],
  [
    'wind',
    new RegExp(
      String.raw`\b(?:winds?|windy|windswept|breez\w*|gusts?|blizzard|deserts?|dunes?|snow\w*|mountains?|peaks?|` +
        String.raw`arctic|tundra|canyons?|cliffs?|storm)\b`,
    ),
  ],
];
const NIGHT = /\b(?:night|midnight|moon\w*|stars?|starry|dark)\b/;

export interface SoundPart {
  kind: SoundKind;
  /** Level relative to the lead sound (1). */
  gain: number;
}

/** The sounds of a prompt, the lead first. */
export function soundScene(prompt: string): SoundPart[] {
  const text = prompt.toLowerCase();
  const found = SOUND_WORDS.map(([kind, re]) => ({ kind, at: text.search(re) }))
    .filter((f) => f.at >= 0)
    .sort((a, b) => a.at - b.at)
    .map((f) => f.kind);
  // Birds sleep at night; the crickets take over in the same places.
  const night = NIGHT.test(text);
  const kinds = [...new Set(found.map((k) => (k === 'birds' && night ? 'insects' : k)))];
  if (kinds.length === 0) return [{ kind: night ? 'insects' : 'music', gain: 1 }];
  return kinds.slice(0, 3).map((kind, i) => ({ kind, gain: i === 0 ? 1 : 0.45 }));
}
