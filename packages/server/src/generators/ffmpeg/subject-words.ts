/**
 * The words of the everyday things the built-in renderer draws (scene-subjects.ts): keyword tables,
 * so a person can see why a prompt drew what it drew. docs/renderer.md lists them.
 */
import { earliestMatch } from './prompt-words.ts';

export type Subject =
  | 'lighthouse'
  | 'boat'
  | 'house'
  | 'tree'
  | 'mountains'
  | 'car'
  | 'bird'
  | 'kite'
  | 'moon'
  | 'water'
  | 'windmill'
  | 'balloon';

/** The words of each subject; a harbour has boats and water. */
export const SUBJECT_WORDS: Array<[Subject, RegExp]> = [
  ['lighthouse', /\blighthouses?\b/],
  ['boat', /\b(?:(?:sail|row|paper|fishing)?boats?|ships?|yachts?|canoes?|kayaks?|ferry|ferries|harbou?rs?)\b/],
  ['house', /\b(?:(?:farm)?houses?|cottages?|cabins?|barns?|homes?|huts?|chalets?|villas?)\b/],
  ['tree', /\b(?:trees?|oaks?|willows?|maples?|birch(?:es)?|palm trees?)\b/],
  ['mountains', /\b(?:mountains?|peaks?|alps|alpine|summits?|volcano(?:es)?)\b/],
  ['car', /\b(?:cars?|trucks?|vans?|taxis?|taxicabs?|jeeps?|automobiles?)\b/],
  ['bird', /\b(?:birds?|seagulls?|gulls?|eagles?|crows?|ravens?|hawks?|doves?|pigeons?|swallows?|geese|goose)\b/],
  ['kite', /\bkites?\b/],
  ['moon', /\b(?:moon|full moon|crescent moon|moonrise)\b/],
  [
    'water',
    new RegExp(
      String.raw`\b(?:ponds?|lakes?|rivers?|streams?|creeks?|canals?|sea|seas|oceans?|water|bay|harbou?rs?|waves?|` +
        String.raw`coast|shore|beach)\b`,
    ),
  ],
  ['windmill', /\bwindmills?\b/],
  ['balloon', /\b(?:hot[\s-]?air[\s-]balloons?|balloons?)\b/],
];

/** The words that make water a pond in the land rather than the sea to the horizon. */
export const POND_WORDS = /\b(?:ponds?|puddles?)\b/;

/** The subjects a prompt names, in the order it names them. */
export function namedSubjects(prompt: string): Subject[] {
  const text = prompt.toLowerCase();
  return SUBJECT_WORDS.map(([subject, re]) => ({ subject, at: text.search(re) }))
    .filter((s) => s.at >= 0)
    .sort((a, b) => a.at - b.at)
    .map((s) => s.subject);
}

/** The first of a prompt's subjects, for the scene's defaults (a boat is on water, a lighthouse by the sea). */
export const firstSubject = (prompt: string) => earliestMatch(prompt.toLowerCase(), SUBJECT_WORDS);
