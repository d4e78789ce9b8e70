/**
 * How the relay speaks API families A (xAI style) and B (new-api style) as a client, and the table
 * of every dialect (fal and Replicate: hosted-dialects.ts).
 */
import type { RelayChannelConfig, RelayDialect } from './relay-config.ts';
import { FAL_DIALECT, REPLICATE_DIALECT } from './hosted-dialects.ts';
import { OPENAI_DIALECT } from './openai-dialect.ts';
import { VEO_DIALECT } from './veo-dialect.ts';
import {
  costOf,
  enc,
  errorCodeOf,
  phaseOf,
  progressOf,
  reasonOf,
  resolutionOf,
  stringField,
  taskOf,
  type RelayDialectSpec,
  type SubmitPayload,
} from './relay-dialect-spec.ts';

export { phaseOf, type RelayDialectSpec, type SubmitPayload, type UpstreamState } from './relay-dialect-spec.ts';

const familyA: RelayDialectSpec = {
  authScheme: 'Bearer',
  submitPath: (p) =>
    p.kind === 'edit' ? '/v1/videos/edits' : p.kind === 'extend' ? '/v1/videos/extensions' : '/v1/videos/generations',
  listPath: '/v1/videos',
  // xAI (xai-sdk-python GenerateVideoRequest): model, prompt, image.url, duration, aspect_ratio,
  // resolution ("480p"/"720p", below 720p when absent). It has no seed; vidgen takes no resolution.
  submitBody: (p, channel) =>
    p.video
      ? editBody(p, channel)
      : {
          ...channel.extraBody,
          model: p.upstreamModel,
          prompt: p.prompt,
          duration: p.duration,
          aspect_ratio: p.ratio,
          ...(channel.upstream === 'vidgen' ? {} : { resolution: resolutionOf(p.width, p.height) }),
          ...(p.images.length > 0 ? { image: { url: p.images[0] } } : {}),
          ...xaiInputs(p),
          ...(p.seed !== undefined ? { seed: p.seed } : {}),
          ...soundOf(p),
        },
  idOf: (body) => stringField(taskOf(body), 'request_id', 'id'),
  pollPath: (id) => `/v1/videos/${enc(id)}`,
  cancel: { method: 'POST', path: (id) => `/v1/videos/${enc(id)}/cancel` },
  state(httpStatus, body) {
    const task = taskOf(body) ?? {};
    // xAI answers 202 for as long as the task is not finished, whatever the body says.
    const phase = httpStatus === 202 ? 'pending' : phaseOf(task.status);
    const video = task.video as { url?: unknown; respect_moderation?: unknown } | undefined;
    const videoUrl = typeof video?.url === 'string' && video.url ? video.url : stringField(task, 'video_url');
    // xAI finishes a moderated video as `done` without a URL: a verdict, not a state to wait out.
    if (phase === 'succeeded' && !videoUrl && video?.respect_moderation === false)
      return { phase: 'failed', moderated: true, costUsdTicks: costOf(task) };
    if (phase === 'succeeded' && !videoUrl) return { phase: 'unknown' };
    return {
      phase,
      progress: progressOf(task.progress),
      videoUrl,
      errorCode: errorCodeOf(task),
      reason: reasonOf(task),
      costUsdTicks: costOf(task),
    };
  },
};

/**
 * xAI edits and extensions (xai-sdk-ts `resources/videos.ts`): the input inline as `video.url`; an
 * edit keeps the input's shape and length, so only an extension says how many seconds to add.
 * Polled and fetched like a generation.
 */
function editBody(p: SubmitPayload, channel: RelayChannelConfig): Record<string, unknown> {
  return {
    ...channel.extraBody,
    model: p.upstreamModel,
    prompt: p.prompt,
    video: { url: p.video },
    ...(p.kind === 'extend' ? { duration: p.duration } : {}),
    ...soundOf(p),
  };
}

/**
 * The other inputs in xAI's own fields (@ai-sdk/xai 5.0.12 `src/xai-video-model.ts`, what xAI's
 * users send): `last_frame: {url}`, `keyframes: [{image: {url}, timestamp_s}]`,
 * `reference_images: [{url}]`, `reference_audios: [{url}]`; each URL a data URI. A vidgen upstream
 * reads the same names.
 */
function xaiInputs(p: SubmitPayload): Record<string, unknown> {
  const urls = (list?: string[]) => list?.map((url) => ({ url }));
  return {
    ...(p.lastFrame ? { last_frame: { url: p.lastFrame } } : {}),
    ...(p.keyframes
      ? { keyframes: p.keyframes.map((k) => ({ image: { url: k.image }, timestamp_s: k.atSeconds })) }
      : {}),
    ...(p.referenceImages ? { reference_images: urls(p.referenceImages) } : {}),
    ...(p.referenceAudios ? { reference_audios: urls(p.referenceAudios) } : {}),
  };
}

/**
 * Sound is asked the way xAI takes it, `generate_audio` (also what a vidgen upstream reads, and
 * what new-api passes through to its channel untouched); the output is checked for it either way.
 */
function soundOf(p: SubmitPayload): { generate_audio?: boolean } {
  return p.audio === undefined ? {} : { generate_audio: p.audio };
}

const familyB: RelayDialectSpec = {
  authScheme: 'Bearer',
  submitPath: () => '/v1/video/generations',
  listPath: '/v1/video/generations',
  // new-api reads TaskSubmitReq (relay/common/relay_info.go): prompt, model, mode, image, images,
  // size, duration, seconds, input_reference, metadata; no `ratio`, so the shape travels as `size`
  // and the length as both `duration` and `seconds`. vidgen reads `ratio` and fixes the length by model.
  submitBody: (p, channel) => ({
    ...channel.extraBody,
    model: p.upstreamModel,
    prompt: p.prompt,
    ...(channel.upstream === 'vidgen'
      ? { ratio: p.ratio }
      : { size: `${p.width}x${p.height}`, duration: p.duration, seconds: String(p.duration) }),
    ...(channel.sendRatio && channel.upstream !== 'vidgen' ? { ratio: p.ratio } : {}),
    ...familyBInputs(p, channel),
    ...(p.seed !== undefined ? { seed: p.seed } : {}),
    ...soundOf(p),
  }),
  idOf: (body) => stringField(taskOf(body), 'task_id', 'id'),
  pollPath: (id) => `/v1/video/generations/${enc(id)}`,
  contentPath: (id) => familyBContentPath(id),
  cancel: { method: 'POST', path: (id) => `/v1/video/generations/${enc(id)}/cancel` },
  state(_httpStatus, body) {
    const task = taskOf(body) ?? {};
    let phase = phaseOf(task.status);
    // vidgen keeps SUCCESS after retention and says so with `expired: true`.
    if (phase === 'succeeded' && task.expired === true) phase = 'expired';
    // new-api's `result_url` is its provider's link (or its own content proxy): a fallback when the proxy fails.
    const videoUrl = stringField(task, 'result_url', 'url');
    return {
      phase,
      progress: progressOf(task.progress),
      videoUrl,
      errorCode: errorCodeOf(task),
      reason: reasonOf(task),
    };
  },
};

/**
 * Family B's inputs: `images` with the first frame first and the references after it (one image
 * alone as `image`), and the last frame as the extension field `last_frame`. new-api decodes only
 * TaskSubmitReq's fields (relay/common/relay_info.go) and drops any other, so for it the last frame
 * travels in `metadata`, which it hands to its provider's adaptor whole.
 */
function familyBInputs(p: SubmitPayload, channel: RelayChannelConfig): Record<string, unknown> {
  const images = [...p.images, ...(p.referenceImages ?? [])];
  const out: Record<string, unknown> = images.length === 1 ? { image: images[0] } : images.length > 1 ? { images } : {};
  if (!p.lastFrame) return out;
  if (channel.upstream === 'vidgen') return { ...out, last_frame: p.lastFrame };
  const metadata = channel.extraBody.metadata;
  return {
    ...out,
    metadata: { ...(metadata && typeof metadata === 'object' ? metadata : {}), last_frame: p.lastFrame },
  };
}

export const RELAY_DIALECTS: Record<RelayDialect, RelayDialectSpec> = {
  A: familyA,
  B: familyB,
  fal: FAL_DIALECT,
  replicate: REPLICATE_DIALECT,
  openai: OPENAI_DIALECT,
  veo: VEO_DIALECT,
};

/** Family B's video is at the content endpoint of the channel, fetched with the key (docs/service-spec.md §4.7). */
export function familyBContentPath(id: string): string {
  return `/v1/videos/${enc(id)}/content`;
}
