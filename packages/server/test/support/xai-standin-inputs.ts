/**
 * What xAI's video API takes beside the first frame, and what it refuses, as its own client sends
 * and checks it (@ai-sdk/xai 5.0.12, `src/xai-video-model.ts` and `src/xai-video-options.ts`):
 * - `last_frame: {url}` and `keyframes: [{image: {url}, timestamp_s}]` (at most 4) only for
 *   `grok-imagine-video-1.5`, and never for edits or extensions;
 * - `reference_images: [{url}]` (at most 7), `reference_audios: [{url} | {voice_id}]` (at most 3);
 *   reference-to-video is capped at 720p.
 * Anything else is xAI's 400 "Client specified an invalid argument".
 */
const KEYFRAME_MODELS = ['grok-imagine-video-1.5'];

const isUrl = (v: unknown) =>
  !!v && typeof (v as { url?: unknown }).url === 'string' && (v as { url: string }).url !== '';

/** The reason xAI would refuse these inputs, or undefined. */
export function xaiInputProblem(
  body: Record<string, any>,
  kind: 'generations' | 'edits' | 'extensions',
  seconds: number,
): string | undefined {
  const frames = body.last_frame !== undefined || body.keyframes !== undefined;
  if (frames && (kind !== 'generations' || !KEYFRAME_MODELS.includes(body.model)))
    return `last_frame and keyframes are not supported for ${kind === 'generations' ? body.model : kind}`;
  if (body.last_frame !== undefined && !isUrl(body.last_frame)) return 'last_frame.url must be a string';
  if (body.keyframes !== undefined) {
    if (!Array.isArray(body.keyframes) || body.keyframes.length > 4) return 'keyframes: at most 4';
    for (const [i, k] of body.keyframes.entries()) {
      if (!isUrl(k?.image)) return `keyframes[${i}].image.url must be a string`;
      if (typeof k.timestamp_s !== 'number' || !(k.timestamp_s > 0 && k.timestamp_s < seconds))
        return `keyframes[${i}].timestamp_s must be within the video`;
    }
  }
  if (body.reference_images !== undefined) {
    if (!Array.isArray(body.reference_images) || body.reference_images.length > 7) return 'reference_images: at most 7';
    if (!body.reference_images.every(isUrl)) return 'reference_images[].url must be a string';
  }
  if (body.reference_audios !== undefined) {
    if (!Array.isArray(body.reference_audios) || body.reference_audios.length > 3) return 'reference_audios: at most 3';
    if (!body.reference_audios.every((a: any) => isUrl(a) || typeof a?.voice_id === 'string'))
      return 'reference_audios[] must be {url} or {voice_id}';
  }
  const references = body.reference_images !== undefined || body.reference_audios !== undefined;
  if (references && body.resolution === '1080p') return 'reference-to-video is limited to 720p';
  return undefined;
}
