import type { OpenRouterFrameImage, OpenRouterInputReference } from '@vidgen/protocol';
import type { InputRole } from '../../domain/task-inputs.ts';
import { characterFileId } from '../../domain/characters.ts';
import { InvalidRequest, type ApiErrorCode } from '../../errors.ts';
import type { WireInput, WireInputs } from './wire-inputs.ts';

type Body = { frame_images?: OpenRouterFrameImage[]; input_references?: OpenRouterInputReference[] };

const REFERENCE_ROLE: Record<OpenRouterInputReference['type'], InputRole> = {
  image_url: 'reference_image',
  video_url: 'reference_video',
  audio_url: 'reference_audio',
};

const INVALID: Record<OpenRouterInputReference['type'], ApiErrorCode> = {
  image_url: 'invalid_image',
  video_url: 'invalid_video',
  audio_url: 'invalid_audio',
};

/**
 * OpenRouter's inputs (docs/inputs.md), as `@openrouter/ai-sdk-provider` 3.1.0 sends them
 * (`dist/index.js`: `convertImageToFrameImage` makes `frame_images[0]` of the call's image, and
 * `providerOptions.openrouter` is spread into the body, which carries a last frame and
 * `input_references`):
 * - `frame_images[]`: `{type: "image_url", image_url: {url}, frame_type: "first_frame" | "last_frame"}`;
 * - `input_references[]`: `{type: "image_url" | "video_url" | "audio_url", <type>: {url}}`, reference
 *   images, videos and sound.
 * Each `url` is an http(s) URL, a data URL, the id of an upload (`file-…`) or of a character (`char_…`).
 */
export const openRouterInputs: WireInputs<Body> = {
  read(body) {
    const inputs: WireInput[] = [];
    const seen = new Set<string>();
    for (const [i, frame] of (body.frame_images ?? []).entries()) {
      const field = `frame_images[${i}]`;
      if (seen.has(frame.frame_type))
        throw new InvalidRequest('invalid_image', `\`${field}\` is a second \`${frame.frame_type}\`.`, field);
      seen.add(frame.frame_type);
      const url = `${field}.image_url.url`;
      inputs.push({ request: { role: frame.frame_type, ...source(frame.image_url.url) }, field, parts: part(url) });
    }
    for (const [i, reference] of (body.input_references ?? []).entries()) {
      const field = `input_references[${i}]`;
      const held = reference[reference.type];
      if (held === undefined)
        throw new InvalidRequest(
          INVALID[reference.type],
          `\`${field}\` of type \`${reference.type}\` must hold \`${reference.type}: {url}\`.`,
          `${field}.${reference.type}`,
        );
      const url = `${field}.${reference.type}.url`;
      inputs.push({ request: { role: REFERENCE_ROLE[reference.type], ...source(held.url) }, field, parts: part(url) });
    }
    return inputs;
  },
  lists: {
    first_frame: 'frame_images',
    last_frame: 'frame_images',
    reference_image: 'input_references',
    reference_audio: 'input_references',
    reference_video: 'input_references',
  },
};

/**
 * Where a URL may stand: an upload's id (`file-…`), or a character's (`char_…`, OpenAI's characters:
 * its video, an upload of the account); else the URL itself.
 */
function source(url: string): { url?: string; fileId?: string } {
  if (/^file-[\w-]+$/.test(url)) return { fileId: url };
  const character = characterFileId(url);
  return character === undefined ? { url } : { fileId: character };
}

const part = (name: string) => ({ url: name, fileId: name });
