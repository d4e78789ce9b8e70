import { access } from 'node:fs/promises';
import { familyAImage, familyBImage, isRemoteImage } from '../node/local-image.ts';
import { familyAMedia } from '../node/local-media.ts';
import type { NodeVidgenClient } from '../node/node-vidgen-client.ts';
import type { FamilyAInputs, FamilyBInputs, ModelObject } from '../types.ts';
import type { Flags } from './cli-args.ts';
import { UsageError } from './exit-codes.ts';

/** One `--keyframe <seconds>=<file|url>`. */
export interface KeyframeFlag {
  seconds: number;
  ref: string;
}

/**
 * `--keyframe 2.5=frame.png`: a time in seconds after 0 and before the video's end, an `=`, then a
 * local file or a URL. Refused before anything is read or sent, with an example of the form.
 */
export function parseKeyframe(raw: string, duration: number | undefined): KeyframeFlag {
  const at = raw.indexOf('=');
  const time = at > 0 ? raw.slice(0, at).trim() : '';
  const ref = at > 0 ? raw.slice(at + 1) : '';
  const seconds = Number(time);
  if (time === '' || ref === '' || !Number.isFinite(seconds)) {
    throw new UsageError(`--keyframe must be <seconds>=<file|url>, e.g. --keyframe 2.5=frame.png; got '${raw}'.`);
  }
  if (!(seconds > 0) || (duration !== undefined && !(seconds < duration))) {
    const within = duration === undefined ? 'after 0' : `after 0 and before the video's end (${duration} s)`;
    throw new UsageError(`--keyframe '${raw}': its time must be ${within}.`);
  }
  return { seconds, ref };
}

/** Every local file the input flags name, checked to exist before anything is asked of the server. */
export async function checkLocalInputs(flags: Flags, keyframes: readonly KeyframeFlag[]): Promise<void> {
  const refs = [
    ...(flags.image ?? []),
    ...(flags['last-frame'] ? [flags['last-frame']] : []),
    ...keyframes.map((k) => k.ref),
    ...(flags.reference ?? []),
    ...(flags['reference-audio'] ?? []),
  ];
  await Promise.all(refs.filter((ref) => !isRemoteImage(ref)).map((path) => access(path)));
}

/**
 * Family A's inputs besides the first frame: local pictures are uploaded (`{file_id}`), URLs and
 * data URIs go as `{url}`, as `--image` does. Whether the model takes them is the server's to say
 * (its 400 names the field); a reference audio makes the soundtrack, so it asks for sound.
 */
export async function familyAInputs(
  client: NodeVidgenClient,
  flags: Flags,
  keyframes: readonly KeyframeFlag[],
): Promise<FamilyAInputs & { generate_audio?: boolean }> {
  const inputs: FamilyAInputs & { generate_audio?: boolean } = {};
  const last = flags['last-frame'];
  if (last) inputs.last_frame = await familyAImage(client, last);
  if (keyframes.length > 0)
    inputs.keyframes = await Promise.all(
      keyframes.map(async (k) => ({ image: await familyAImage(client, k.ref), timestamp_s: k.seconds })),
    );
  const references = flags.reference ?? [];
  if (references.length > 0)
    inputs.reference_images = await Promise.all(references.map((r) => familyAImage(client, r)));
  const audios = flags['reference-audio'] ?? [];
  if (audios.length > 0) {
    inputs.reference_audios = await Promise.all(audios.map((a) => familyAMedia(client, a)));
    inputs.generate_audio = true;
  }
  return inputs;
}

/**
 * Family B's inputs: each a URL or a data URI of a local file. Its reference images are `images[1..]`,
 * after the first frame in `images[0]`; it has no keyframes or reference audio.
 */
export async function familyBInputs(
  model: ModelObject,
  flags: Flags,
  images: readonly string[],
  keyframes: readonly KeyframeFlag[],
): Promise<FamilyBInputs> {
  const refuse = (what: string) =>
    new UsageError(
      `model '${model.id}' is a family B model, which takes no ${what}; ` +
        'a family A model that takes them is listed by `vidgen models`.',
    );
  if (keyframes.length > 0) throw refuse('--keyframe');
  if ((flags['reference-audio'] ?? []).length > 0) throw refuse('--reference-audio');
  const references = flags.reference ?? [];
  if (references.length > 0 && images.length === 0)
    throw new UsageError(
      `model '${model.id}' (family B) takes reference images after a first frame: add --image <url|path>.`,
    );
  const inputs: FamilyBInputs = {};
  const all = [...images, ...references];
  if (all.length === 1) inputs.image = await familyBImage(all[0]);
  if (all.length > 1) inputs.images = await Promise.all(all.map(familyBImage));
  const last = flags['last-frame'];
  if (last) inputs.last_frame = await familyBImage(last);
  return inputs;
}
