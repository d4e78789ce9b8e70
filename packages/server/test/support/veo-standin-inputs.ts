/**
 * Veo's inputs beside the first frame, as Google documents them:
 * - `instances[].lastFrame` (an `Image`: bytesBase64Encoded, mimeType): "Only supported for image
 *   to video use cases" (googleapis/js-genai `GenerateVideosConfig.lastFrame`), so never without `image`;
 * - `instances[].referenceImages[]` `{image, referenceType}`: "The image, video, or last_frame field
 *   are not supported" with them (googleapis/java-genai `GenerateVideosConfig.referenceImages`); up to
 *   three `asset` images of one subject (Vertex AI "Generate videos from reference images"), or
 *   one `style` image.
 * Anything else is a 400 INVALID_ARGUMENT.
 */
const isImage = (v: any) => typeof v?.bytesBase64Encoded === 'string' && typeof v?.mimeType === 'string';

/** Why Veo would refuse this instance's inputs, or undefined. */
export function veoInputProblem(instance: Record<string, any>): string | undefined {
  if (instance.lastFrame !== undefined) {
    if (!isImage(instance.lastFrame)) return 'instances[0].lastFrame must carry bytesBase64Encoded and mimeType.';
    if (instance.image === undefined) return 'lastFrame is only supported together with image.';
  }
  const refs = instance.referenceImages;
  if (refs === undefined) return undefined;
  if (!Array.isArray(refs) || refs.length === 0) return 'instances[0].referenceImages must be a non-empty list.';
  if (instance.image !== undefined || instance.lastFrame !== undefined || instance.video !== undefined)
    return 'referenceImages cannot be combined with image, lastFrame or video.';
  for (const [i, r] of refs.entries()) {
    if (!isImage(r?.image)) return `instances[0].referenceImages[${i}].image must carry bytesBase64Encoded.`;
    if (r.referenceType !== 'asset' && r.referenceType !== 'style')
      return `instances[0].referenceImages[${i}].referenceType must be "asset" or "style".`;
  }
  const styles = refs.filter((r: any) => r.referenceType === 'style').length;
  if (styles > 0 ? styles > 1 || refs.length > 1 : refs.length > 3)
    return 'referenceImages takes up to 3 asset images or 1 style image.';
  return undefined;
}
