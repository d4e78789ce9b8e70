import {
  DECLARATION_KEY,
  FIRST_FRAME_ONLY,
  type InputDeclarationKey,
  type ModelInputs,
} from '../domain/task-inputs.ts';

const KEYS = Object.values(DECLARATION_KEY) as InputDeclarationKey[];
const FLAGS: readonly InputDeclarationKey[] = ['first_frame', 'last_frame'];
/** The most of one role any entry may declare: more than any upstream takes today, so a typo stands out. */
const MOST = 16;

/**
 * A catalog entry's `inputs` (docs/inputs.md): absent, first frame only, as every model took
 * before references existed; present, each key it names replaces the default, and `exclusive`
 * lists groups of keys a request may use at most one of.
 */
export function parseModelInputs(value: unknown, fail: (what: string) => never): ModelInputs {
  if (value === undefined) return FIRST_FRAME_ONLY;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail('"inputs" must be an object');
  const raw = value as Record<string, unknown>;
  for (const key of Object.keys(raw)) {
    if (key !== 'exclusive' && !KEYS.includes(key as InputDeclarationKey)) fail(`"inputs.${key}" is not an input`);
  }
  const inputs = { ...FIRST_FRAME_ONLY, exclusive: [] } as ModelInputs;
  for (const key of KEYS) {
    const given = raw[key];
    if (given === undefined) continue;
    if (FLAGS.includes(key)) {
      if (typeof given !== 'boolean') fail(`"inputs.${key}" must be true or false`);
      (inputs as unknown as Record<string, unknown>)[key] = given;
    } else {
      if (!Number.isInteger(given) || (given as number) < 0 || (given as number) > MOST)
        fail(`"inputs.${key}" must be a whole number from 0 to ${MOST}`);
      (inputs as unknown as Record<string, unknown>)[key] = given;
    }
  }
  inputs.exclusive = parseExclusive(raw.exclusive, fail);
  return inputs;
}

function parseExclusive(value: unknown, fail: (what: string) => never): InputDeclarationKey[][] {
  if (value === undefined) return [];
  const groups = Array.isArray(value) ? value : fail('"inputs.exclusive" must be a list of lists of input keys');
  return groups.map((group, i) => {
    if (!Array.isArray(group) || group.length < 2) fail(`"inputs.exclusive[${i}]" must list at least two input keys`);
    for (const key of group as unknown[])
      if (!KEYS.includes(key as InputDeclarationKey))
        fail(`"inputs.exclusive[${i}]": "${String(key)}" is not an input`);
    return [...(group as InputDeclarationKey[])];
  });
}
