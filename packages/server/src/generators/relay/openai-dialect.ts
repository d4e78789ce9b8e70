/**
 * The OpenAI Videos shape as a relay dialect, the protocol the open-model inference servers serve
 * (`POST /v1/videos` → a `Video` {id, status: queued | in_progress | completed | failed, progress,
 * error: {code, message}}; `GET /v1/videos/{id}`; `GET /v1/videos/{id}/content`), read in their own
 * code:
 * - vLLM-Omni (vllm-project/vllm-omni `docs/serving/videos_api.md`,
 *   `vllm_omni/entrypoints/openai/api_server.py` create_video/delete_video/download_video,
 *   `vllm_omni/entrypoints/openai/protocol/videos.py`): the create is **multipart only** (FastAPI
 *   `Form` fields; `input_reference` a file, `extra_params` and `lora` JSON strings, `generate_sound`),
 *   `seconds` a digit string, `num_frames = seconds × fps` (fps 24 by default); `DELETE` of a queued
 *   or running job aborts it; `/v1/videos/sync` answers the bytes of a held request, which the relay
 *   never uses (a cut answer there is paid GPU time with no id to follow).
 * - SGLang Diffusion (sgl-project/sglang `python/sglang/multimodal_gen/runtime/entrypoints/openai/
 *   video_api.py`): JSON, or multipart only with an `input_reference` file; `seconds`, `size`, `fps`;
 *   its `DELETE` only forgets the job (its source leaves aborting a job for later), so it is no cancel.
 * - OpenAI's own shape (openai-node `src/resources/videos/videos.ts`), as LiteLLM, Dynamo, Unsloth
 *   and vidgen serve it: JSON with `input_reference: {image_url}`, or multipart with a file.
 * Pending answers may carry `openai-poll-after-ms` (follow-upstream-task.ts honours it).
 */
import type { RelayChannelConfig } from './relay-config.ts';
import {
  enc,
  errorCodeOf,
  phaseOf,
  progressOf,
  reasonOf,
  stringField,
  type RelayDialectSpec,
  type SubmitPayload,
} from './relay-dialect-spec.ts';

/**
 * The size asked of the server: each side rounded up to the model's multiple (then cropped back, relay-generator.ts).
 */
export function sizeFor(p: { width: number; height: number }, channel: RelayChannelConfig): [number, number] {
  const m = channel.sizeMultiple ?? 1;
  return [Math.ceil(p.width / m) * m, Math.ceil(p.height / m) * m];
}

function encodingOf(p: SubmitPayload, channel: RelayChannelConfig): 'json' | 'multipart' {
  // The input of an edit is a file: only a multipart `video` part carries it (openai-node `edit`, `extend`).
  if (channel.multipart === 'always' || p.video) return 'multipart';
  if (channel.multipart === 'never') return 'json';
  return p.images.length > 0 || p.video || p.referenceAudios || p.referenceVideos ? 'multipart' : 'json';
}

/** vLLM-Omni and SGLang derive the frame count from `seconds × fps`; OpenAI's shape has no fps. */
const TAKES_FPS = new Set(['vllm-omni', 'sglang']);

function submitBody(p: SubmitPayload, channel: RelayChannelConfig): Record<string, unknown> {
  if (p.kind !== 'generate')
    // Edits keep the input's shape and length; an extension says how many seconds to add.
    return {
      ...channel.extraBody,
      model: p.upstreamModel,
      prompt: p.prompt,
      video: p.video,
      ...(p.kind === 'extend' ? { seconds: String(p.duration) } : {}),
    };
  const [width, height] = sizeFor(p, channel);
  const multipart = encodingOf(p, channel) === 'multipart';
  const image = p.images[0];
  return {
    ...channel.extraBody,
    model: p.upstreamModel,
    prompt: p.prompt,
    seconds: String(p.duration),
    size: `${width}x${height}`,
    ...(TAKES_FPS.has(channel.upstream) ? { fps: p.fps ?? 24 } : {}),
    ...(image ? { input_reference: multipart ? image : { image_url: image } } : {}),
    // vLLM-Omni's reference video and sound: file parts beside `input_reference`.
    ...(p.referenceVideos ? { video_reference: p.referenceVideos[0] } : {}),
    ...(p.referenceAudios ? { audio_reference: p.referenceAudios[0] } : {}),
    ...(p.seed !== undefined ? { seed: p.seed } : {}),
  };
}

export const OPENAI_DIALECT: RelayDialectSpec = {
  authScheme: 'Bearer',
  submitPath: (p) =>
    p.kind === 'edit' ? '/v1/videos/edits' : p.kind === 'extend' ? '/v1/videos/extensions' : '/v1/videos',
  // Only a vidgen upstream filters its listing by `?idempotency_key=` (find-upstream-task.ts checks it does).
  listPath: '/v1/videos',
  submitBody,
  submitEncoding: encodingOf,
  idOf: (body) => stringField(body as Record<string, unknown> | undefined, 'id'),
  pollPath: (id) => `/v1/videos/${enc(id)}`,
  contentPath: (id) => `/v1/videos/${enc(id)}/content`,
  // vLLM-Omni: a bounded engine abort of a queued or running job, then the record is gone.
  cancel: { method: 'DELETE', path: (id) => `/v1/videos/${enc(id)}` },
  state(_httpStatus, body) {
    const video = (body ?? {}) as Record<string, unknown>;
    return {
      phase: phaseOf(video.status),
      progress: progressOf(video.progress),
      // vLLM-Omni names the exception (`ValueError`), SGLang gives a message only.
      errorCode: errorCodeOf(video),
      reason: reasonOf(video),
    };
  },
};
