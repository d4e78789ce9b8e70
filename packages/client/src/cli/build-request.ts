import type { NodeVidgenClient } from '../node/node-vidgen-client.ts';
import { familyAImage } from '../node/local-image.ts';
import type { FamilyACreateBody, FamilyBCreateBody, ModelObject } from '../types.ts';
import { numberFlag, requireFlag, type Flags } from './cli-args.ts';
import { EXIT, UsageError } from './exit-codes.ts';
import { durationsText } from './durations-text.ts';
import { checkLocalInputs, familyAInputs, familyBInputs, parseKeyframe } from './input-flags.ts';

export type BuiltRequest =
  | { family: 'A'; model: ModelObject; body: FamilyACreateBody }
  | { family: 'B'; model: ModelObject; body: FamilyBCreateBody };

/** Checks the model against /v1/models first (docs/service-spec.md §1: confirm availability before submitting). */
export async function findModel(client: NodeVidgenClient, id: string): Promise<ModelObject> {
  return pickModel((await client.models.list()).data, id);
}

function pickModel(models: ModelObject[], id: string): ModelObject {
  const model = models.find((m) => m.id === id || m.aliases?.includes(id));
  if (!model) {
    const known = models.map((m) => m.id).join(', ') || 'none';
    throw new UsageError(`model '${id}' is not available to this API key (available: ${known}).`, EXIT.badRequest);
  }
  return model;
}

/** Builds the family's body from the flags; local files become a data URI (B) or an upload (A). */
export async function buildRequest(client: NodeVidgenClient, flags: Flags): Promise<BuiltRequest> {
  // A malformed --keyframe or a missing local file is found before anything is asked of the server.
  const stated = numberFlag(flags, 'duration');
  const keyframeFlags = (flags.keyframe ?? []).map((raw) => parseKeyframe(raw, stated));
  await checkLocalInputs(flags, keyframeFlags);
  const models = (await client.models.list()).data;
  const model = pickModel(models, requireFlag(flags, 'model'));
  const prompt = requireFlag(flags, 'prompt');
  checkDuration(model, models, flags);
  const keyframes = (flags.keyframe ?? []).map((raw) => parseKeyframe(raw, durationOf(model, flags)));
  const images = flags.image ?? [];
  const seed = numberFlag(flags, 'seed');
  if (model.family === 'A') {
    if (images.length > 1)
      throw new UsageError(`model '${model.id}' takes one first frame; got ${images.length} --image flags.`);
    if (model.requires_image && images.length === 0)
      throw new UsageError(`model '${model.id}' animates a first frame: pass --image <url|path>.`);
    const body: FamilyACreateBody = { model: model.id, prompt, duration: familyADuration(model, flags) };
    if (images[0]) body.image = await familyAImage(client, images[0]);
    Object.assign(body, await familyAInputs(client, flags, keyframes));
    if (flags.ratio) body.aspect_ratio = flags.ratio;
    if (seed !== undefined) body.seed = seed;
    if (flags.audio) body.generate_audio = true;
    return { family: 'A', model, body };
  }
  const body: FamilyBCreateBody = {
    model: model.id,
    prompt,
    ...(await familyBInputs(model, flags, images, keyframes)),
  };
  if (flags.ratio) body.ratio = flags.ratio;
  if (seed !== undefined) body.seed = seed;
  if (flags.audio) body.generate_audio = true;
  return { family: 'B', model, body };
}

/** The video's length: family A's as it will be sent, a family B model's own (its only one). */
function durationOf(model: ModelObject, flags: Flags): number | undefined {
  if (model.family === 'A') return familyADuration(model, flags);
  return model.durations.length === 1 ? model.durations[0] : numberFlag(flags, 'duration');
}

/** Family A needs a duration; without --duration, 5 s when the model allows it, else its shortest. */
function familyADuration(model: ModelObject, flags: Flags): number {
  const requested = numberFlag(flags, 'duration');
  if (requested !== undefined) return requested;
  return model.durations.includes(5) ? 5 : (model.durations[0] ?? 5);
}

/**
 * A --duration the model does not render is refused before anything is sent, with the models that do render it (family
 * B models fix their length, so the answer is usually another model), or the word that none does.
 */
function checkDuration(model: ModelObject, models: ModelObject[], flags: Flags): void {
  const requested = numberFlag(flags, 'duration');
  if (requested === undefined || model.durations.includes(requested)) return;
  // Only what `vidgen generate` can submit: generation models of the two families it speaks.
  const offering = models.filter(
    (m) => (m.family === 'A' || m.family === 'B') && m.capabilities?.generate && m.durations.includes(requested),
  );
  const names = offering.map((m) => (m.requires_image ? `${m.id} (needs an image)` : m.id));
  throw new UsageError(
    `model '${model.id}' renders ${durationsText(model.durations)} s, not ${requested} s. ` +
      (names.length > 0
        ? `Models that render ${requested} s: ${names.join(', ')}.`
        : `No model available to this key renders ${requested} s.`),
    EXIT.badRequest,
  );
}
