/**
 * What a relay channel takes (its `inputs`, docs/relays.md): declared in the backends file, or by
 * default what its kind of upstream takes in the fields the relay fills (relay-dialects.ts), from
 * each upstream's own code and docs:
 * - xAI (@ai-sdk/xai 5.0.12 `src/xai-video-model.ts`, the client xAI's users run): `image`,
 *   `last_frame`, up to 4 `keyframes`, up to 7 `reference_images`, up to 3 `reference_audios`;
 *   a vidgen upstream's family A takes the same names.
 * - new-api (relay/common/relay_info.go TaskSubmitReq): `images` and `metadata` only; which of
 *   them a provider behind it reads is the provider's business, so the default is the first frame
 *   and an operator declares more for a provider that takes it. A vidgen family B upstream takes
 *   `images[1..]` as references and `last_frame`.
 * - Veo (Gemini API / Vertex AI `predictLongRunning`): `image`, `lastFrame` (with an `image`), up to
 *   3 `referenceImages` never with `image` or `lastFrame`.
 * - OpenAI shape: `input_reference`; vLLM-Omni also a `video_reference` and an `audio_reference`.
 * - fal and Replicate: what the channel's input template names (relay-input-template.ts).
 * Routing sends a task only to a channel that takes every input it has (relay-request.ts).
 */
import {
  DECLARATION_KEY,
  FIRST_FRAME_ONLY,
  type InputDeclarationKey,
  type InputRole,
  type ModelInputs,
} from '../../domain/task-inputs.ts';
import { placeholdersInTemplate } from './input-placeholders.ts';

export type InputCounts = Record<InputDeclarationKey, number>;

const KEYS = Object.values(DECLARATION_KEY) as InputDeclarationKey[];
const FLAGS: readonly InputDeclarationKey[] = ['first_frame', 'last_frame'];
/** The most of one role a channel may declare. */
const MOST = 16;

const inputs = (over: Partial<ModelInputs>): ModelInputs => ({ ...FIRST_FRAME_ONLY, exclusive: [], ...over });

const XAI = inputs({ last_frame: true, keyframes: 4, reference_images: 7, reference_audios: 3 });
const VEO = inputs({
  last_frame: true,
  reference_images: 3,
  exclusive: [
    ['reference_images', 'first_frame'],
    ['reference_images', 'last_frame'],
  ],
});

/** What a channel takes when its entry says nothing: what its upstream takes in the fields the relay fills. */
export function defaultChannelInputs(
  dialect: string,
  upstream: string,
  template?: Record<string, unknown>,
): ModelInputs {
  if (dialect === 'A') return XAI;
  if (dialect === 'B') return upstream === 'vidgen' ? inputs({ last_frame: true, reference_images: 7 }) : inputs({});
  if (dialect === 'veo') return VEO;
  if (dialect === 'openai')
    return upstream === 'vllm-omni' ? inputs({ reference_audios: 1, reference_videos: 1 }) : inputs({});
  // fal and Replicate: the template decides; a list placeholder takes up to 4 (most hosted models take fewer).
  const used = placeholdersInTemplate(template ?? {});
  return inputs({
    first_frame: used.has('image') || used.has('images'),
    last_frame: used.has('last_frame'),
    keyframes: used.has('keyframes') ? 4 : 0,
    reference_images: used.has('reference_images') ? 4 : 0,
    reference_audios: used.has('reference_audios') ? 3 : 0,
  });
}

/** A channel's `inputs` from the backends file: the default with each key it names replaced. */
export function parseChannelInputs(value: unknown, fallback: ModelInputs, fail: (what: string) => never): ModelInputs {
  if (value === undefined) return fallback;
  if (!value || typeof value !== 'object' || Array.isArray(value)) return fail('"inputs" must be an object');
  const raw = value as Record<string, unknown>;
  for (const key of Object.keys(raw))
    if (key !== 'exclusive' && !KEYS.includes(key as InputDeclarationKey)) fail(`"inputs.${key}" is not an input`);
  const out: Record<string, unknown> = { ...fallback };
  for (const key of KEYS) {
    const given = raw[key];
    if (given === undefined) continue;
    if (FLAGS.includes(key) ? typeof given !== 'boolean' : !isCount(given))
      fail(FLAGS.includes(key) ? `"inputs.${key}" must be true or false` : `"inputs.${key}" must be 0 to ${MOST}`);
    out[key] = given;
  }
  if (raw.exclusive !== undefined) {
    const groups = Array.isArray(raw.exclusive) ? raw.exclusive : fail('"inputs.exclusive" must be a list of lists');
    out.exclusive = groups.map((group, i) =>
      Array.isArray(group) && group.length >= 2 && group.every((k) => KEYS.includes(k as InputDeclarationKey))
        ? (group as InputDeclarationKey[])
        : fail(`"inputs.exclusive[${i}]" must list two or more input keys`),
    );
  }
  return out as unknown as ModelInputs;
}

const isCount = (v: unknown) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= MOST;

/** How many inputs of each declaration key a job brings. */
export function countInputs(roles: readonly InputRole[]): InputCounts {
  const counts = Object.fromEntries(KEYS.map((k) => [k, 0])) as InputCounts;
  for (const role of roles) counts[DECLARATION_KEY[role]]++;
  return counts;
}

/** The declaration takes these inputs: none beyond its counts, and no two of an exclusive group together. */
export function takesInputs(declared: ModelInputs, counts: InputCounts): boolean {
  for (const key of KEYS) {
    const most = FLAGS.includes(key) ? (declared[key] ? 1 : 0) : (declared[key] as number);
    if (counts[key] > most) return false;
  }
  return declared.exclusive.every((group) => group.filter((key) => counts[key] > 0).length <= 1);
}

/**
 * What a declaration cannot say, the dialect's own shape decides: family B carries references
 * only after a first frame (`images[0]` is the first frame), and Veo's `lastFrame` goes only with
 * an `image` (a last frame ends an image-to-video).
 */
export function dialectTakes(dialect: string, counts: InputCounts): boolean {
  if (dialect === 'B' && counts.reference_images > 0 && counts.first_frame === 0) return false;
  if (dialect === 'veo' && counts.last_frame > 0 && counts.first_frame === 0) return false;
  return true;
}
