import type { Logger } from 'pino';
import type { ModelCatalog } from '../catalog/model-catalog.ts';
import { servedBy } from '../domain/input-fit.ts';
import { FIRST_FRAME_ONLY, type ModelInputs } from '../domain/task-inputs.ts';
import type { Generator } from '../generators/generator.ts';

export interface UnservedModel {
  model: string;
  backend: string;
  declared: ModelInputs;
  /** Each way the backend may take the model's tasks (a relay's channels, a ComfyUI model's workflows). */
  offered: readonly ModelInputs[];
}

/**
 * The catalog's generation models whose declared `inputs` no one of their backend's declarations takes
 * as a whole (docs/inputs.md, "Which rule decides at submit"). Submit checks a request against the
 * model's declaration, and routing against the channels: a model that declares more than any one
 * channel takes accepts requests that then fail at run time with `invalid_input` ("no channel").
 * A model with no channel at all is left out: that is the documented run-time "no channel" case,
 * which the relay's own start-up already allows.
 */
export function unservedModels(catalog: ModelCatalog, generators: Record<string, Generator>): UnservedModel[] {
  const found: UnservedModel[] = [];
  for (const entry of catalog.list()) {
    const generator = generators[entry.backend];
    if (!generator || !entry.capabilities.generate) continue;
    const offered = generator.inputsFor ? generator.inputsFor(entry.id) : [FIRST_FRAME_ONLY];
    if (offered.length === 0 || servedBy(entry.inputs, offered)) continue;
    found.push({ model: entry.id, backend: entry.backend, declared: entry.inputs, offered });
  }
  return found;
}

/**
 * Says at start, once per model, which models declare inputs their backend cannot take together. A
 * warning, not a refusal to start: an entry without `inputs` declares a first frame, and a catalog
 * that maps such an entry to a text-only channel (a fal template without `{{image}}`) worked before
 * models declared inputs; its tasks with an image fail at once, nothing sent or charged.
 */
export function reportUnservedInputs(
  catalog: ModelCatalog,
  generators: Record<string, Generator>,
  logger: Pick<Logger, 'warn'>,
): UnservedModel[] {
  const unserved = unservedModels(catalog, generators);
  for (const u of unserved)
    logger.warn(
      { model: u.model, backend: u.backend, declared: u.declared, offered: u.offered },
      `model '${u.model}' declares inputs that no channel of backend '${u.backend}' takes together: ` +
        'requests it accepts with them will fail with invalid_input; declare only what one channel takes',
    );
  return unserved;
}
