/**
 * Whether a model's declared `inputs` can always be served by a backend: some one of the backend's
 * declarations (a relay's channels, `Generator.inputsFor`) takes every request the model accepts.
 * Start-up uses it (composition/unserved-inputs.ts) to report a model that accepts at submit requests
 * no channel of its backend could take (docs/inputs.md, "Which rule decides at submit").
 */
import { DECLARATION_KEY, type InputDeclarationKey, type ModelInputs } from './task-inputs.ts';

const KEYS = Object.values(DECLARATION_KEY) as InputDeclarationKey[];
const most = (inputs: ModelInputs, key: InputDeclarationKey) => Number(inputs[key]);

/** `declared` fits within `offered`: no more of any role, and no pair combined that `offered` keeps apart. */
export function inputsFitWithin(declared: ModelInputs, offered: ModelInputs): boolean {
  if (KEYS.some((key) => most(declared, key) > most(offered, key))) return false;
  const keptApart = (a: InputDeclarationKey, b: InputDeclarationKey) =>
    declared.exclusive.some((group) => group.includes(a) && group.includes(b));
  for (const group of offered.exclusive)
    for (const [i, a] of group.entries())
      for (const b of group.slice(i + 1))
        if (most(declared, a) > 0 && most(declared, b) > 0 && !keptApart(a, b)) return false;
  return true;
}

/** Some one of the backend's declarations serves everything the model declares. */
export function servedBy(declared: ModelInputs, offered: readonly ModelInputs[]): boolean {
  return offered.some((one) => inputsFitWithin(declared, one));
}
