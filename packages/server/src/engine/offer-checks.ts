import { DEFAULT_ASPECT_RATIO, MODEL_ASPECT_RATIOS } from '@vidgen/protocol';
import { outputSize, shortSideOf, type ModelEntry } from '../catalog/model-catalog.ts';
import { InvalidField, type FieldOffer } from '../errors.ts';

/**
 * The submit rules of what a model offers: length, shape, resolution, sound. A refusal names the
 * value sent and every value the model offers instead (invariant 4, docs/architecture.md), in
 * domain words: the dialect names the field and may say the values in its own (`size` '1920x1080').
 */

/** `a, b, c`: the values offered, in the catalog's order. */
export const offeredList = (values: readonly (string | number)[]) => values.join(', ');

/** The frame sizes (`1280x720`) a model renders: each aspect ratio at each resolution. */
export function frameSizes(model: ModelEntry): string[] {
  const sides = model.resolutions.map((r) => shortSideOf(r) ?? model.shortSide);
  const shortSides = sides.length > 0 ? sides : [model.shortSide];
  return shortSides.flatMap((side) =>
    model.aspectRatios.map((ratio) => {
      const { width, height } = outputSize(side, ratio);
      return `${width}x${height}`;
    }),
  );
}

function shapeOffer(model: ModelEntry, sent: string, offered: readonly string[]): FieldOffer {
  return { model: model.id, sent, offered, frameSizes: frameSizes(model) };
}

export function checkAspectRatio(model: ModelEntry, requested: string | undefined): string {
  const ratio =
    requested ?? (model.aspectRatios.includes(DEFAULT_ASPECT_RATIO) ? DEFAULT_ASPECT_RATIO : model.aspectRatios[0]);
  const supported = offeredList(model.aspectRatios);
  const offer = shapeOffer(model, ratio, model.aspectRatios);
  if (!MODEL_ASPECT_RATIOS.includes(ratio)) {
    throw new InvalidField(
      'aspectRatio',
      'invalid_aspect_ratio',
      (name) => `\`${name}\` '${ratio}' is not an aspect ratio; model '${model.id}' supports ${supported}.`,
      offer,
    );
  }
  if (!model.aspectRatios.includes(ratio)) {
    throw new InvalidField(
      'aspectRatio',
      'unsupported_aspect_ratio',
      (name) => `\`${name}\` '${ratio}' is not supported by model '${model.id}'; it supports ${supported}.`,
      offer,
    );
  }
  return ratio;
}

export function checkResolution(model: ModelEntry, requested: string | undefined): number {
  if (requested === undefined) return model.shortSide;
  if (!model.resolutions.includes(requested)) {
    const supported = offeredList(model.resolutions);
    throw new InvalidField(
      'resolution',
      'unsupported_resolution',
      (name) => `\`${name}\` '${requested}' is not offered by model '${model.id}'; it offers ${supported}.`,
      shapeOffer(model, requested, model.resolutions),
    );
  }
  return shortSideOf(requested) ?? model.shortSide;
}

/** The sound a task makes: what was asked, within what the model can do, else its default. */
export function checkSound(model: ModelEntry, requested: boolean | undefined): boolean {
  const { mode } = model.sound;
  if (requested === undefined) return model.sound.default;
  if (requested && mode === 'none') {
    throw new InvalidField(
      'audio',
      'unsupported_audio',
      (name) =>
        `\`${name}\` true is not offered by model '${model.id}': it makes silent videos only (false, or leave it out).`,
      { model: model.id, sent: 'true', offered: ['false'] },
    );
  }
  if (!requested && mode === 'always') {
    throw new InvalidField(
      'audio',
      'unsupported_audio',
      (name) =>
        `\`${name}\` false is not offered by model '${model.id}': it always makes videos with sound ` +
        '(true, or leave it out).',
      { model: model.id, sent: 'false', offered: ['true'] },
    );
  }
  return requested;
}

export function checkDuration(model: ModelEntry, requested: number | undefined): number {
  if (requested === undefined) return model.durations[0];
  if (!model.durations.includes(requested)) {
    const offered = model.durations.map(String);
    const { durations } = model;
    const contiguous = durations.length > 2 && durations.every((d, i) => i === 0 || d === durations[i - 1] + 1);
    const text = contiguous ? `${durations[0]} to ${durations.at(-1)}` : offeredList(offered);
    throw new InvalidField(
      'duration',
      'unsupported_duration',
      (name) => `\`${name}\` ${requested} is not offered by model '${model.id}'; it offers ${text} seconds.`,
      { model: model.id, sent: String(requested), offered },
    );
  }
  return requested;
}
