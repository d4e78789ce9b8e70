import type { NodeVidgenClient } from '../node/node-vidgen-client.ts';
import { access } from 'node:fs/promises';
import { familyAImage, familyBImage, isRemoteImage } from '../node/local-image.ts';
import type { FamilyACreateBody, FamilyBCreateBody, ModelObject } from '../types.ts';
import { numberFlag, requireFlag, type Flags } from './cli-args.ts';
import { EXIT, UsageError } from './exit-codes.ts';

export type BuiltRequest =
  | { family: 'A'; model: ModelObject; body: FamilyACreateBody }
  | { family: 'B'; model: ModelObject; body: FamilyBCreateBody };

/** Checks the model against /v1/models first (docs/service-spec.md §1: confirm availability before submitting). */
export async function findModel(client: NodeVidgenClient, id: string): Promise<ModelObject> {
  const { data } = await client.models.list();
  const model = data.find((m) => m.id === id || m.aliases?.includes(id));
  if (!model) {
    const known = data.map((m) => m.id).join(', ') || 'none';
    throw new UsageError(`model '${id}' is not available to this API key (available: ${known}).`, EXIT.badRequest);
  }
  return model;
}

/** Builds the family's body from the flags; local image files become a data URI (B) or an upload (A). */
export async function buildRequest(client: NodeVidgenClient, flags: Flags): Promise<BuiltRequest> {
  // A missing local image is found before anything is asked of the server.
  await Promise.all((flags.image ?? []).filter((ref) => !isRemoteImage(ref)).map((path) => access(path)));
  const model = await findModel(client, requireFlag(flags, 'model'));
  const prompt = requireFlag(flags, 'prompt');
  const images = flags.image ?? [];
  const seed = numberFlag(flags, 'seed');
  if (model.family === 'A') {
    if (images.length > 1)
      throw new UsageError(`model '${model.id}' takes one first frame; got ${images.length} --image flags.`);
    if (model.requires_image && images.length === 0)
      throw new UsageError(`model '${model.id}' animates a first frame: pass --image <url|path>.`);
    const body: FamilyACreateBody = { model: model.id, prompt, duration: familyADuration(model, flags) };
    if (images[0]) body.image = await familyAImage(client, images[0]);
    if (flags.ratio) body.aspect_ratio = flags.ratio;
    if (seed !== undefined) body.seed = seed;
    return { family: 'A', model, body };
  }
  checkFamilyBDuration(model, flags);
  const body: FamilyBCreateBody = { model: model.id, prompt };
  if (images.length === 1) body.image = await familyBImage(images[0]);
  if (images.length > 1) body.images = await Promise.all(images.map(familyBImage));
  if (flags.ratio) body.ratio = flags.ratio;
  if (seed !== undefined) body.seed = seed;
  return { family: 'B', model, body };
}

/** Family A needs a duration; without --duration, 5 s when the model allows it, else its shortest. */
function familyADuration(model: ModelObject, flags: Flags): number {
  const requested = numberFlag(flags, 'duration');
  if (requested !== undefined) return requested;
  return model.durations.includes(5) ? 5 : (model.durations[0] ?? 5);
}

/** Family B models fix their length in the name; a different --duration is a mistake worth naming. */
function checkFamilyBDuration(model: ModelObject, flags: Flags): void {
  const requested = numberFlag(flags, 'duration');
  if (requested === undefined || model.durations.includes(requested)) return;
  throw new UsageError(
    `model '${model.id}' renders ${model.durations.join(' or ')} s; pick the model for ${requested} s instead of ` +
      `--duration.`,
    EXIT.badRequest,
  );
}
