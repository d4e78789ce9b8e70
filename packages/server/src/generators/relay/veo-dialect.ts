/**
 * Gemini API Veo as a relay dialect, from Google's own documentation ("Generate videos with Veo 3.1
 * in the Gemini API", ai.google.dev/gemini-api/docs/video, its REST tab and parameter table):
 * - `POST {base}/v1beta/models/{model}:predictLongRunning` with `x-goog-api-key`, body
 *   `{instances: [{prompt, image?: {bytesBase64Encoded, mimeType}}], parameters: {aspectRatio
 *   ("16:9" | "9:16"), durationSeconds ("4" | "6" | "8", sent as a string), resolution ("720p" |
 *   "1080p"), negativePrompt, personGeneration, seed}}` → a long-running operation `{name}`;
 * - `GET {base}/v1beta/{name}` until `done: true`, then `error: {code, message, status}` or
 *   `response.generateVideoResponse.generatedSamples[].video.uri`, a file link on the API's own
 *   origin (`…/v1beta/files/{id}:download?alt=media`) that is fetched with the key and redirects
 *   to storage (`curl -L -H "x-goog-api-key: …"`).
 * A run that ends `done` without samples was filtered (`raiMediaFilteredCount`,
 * `raiMediaFilteredReasons`, under `generateVideoResponse`): a moderation verdict, never a success
 * (QuantumNous/new-api PR #6838, "fix(veo): judge RAI-filtered video tasks as failures and refund",
 * is that bug: it had counted such runs as successes). Errors are Google's `{error: {code, message,
 * status}}`.
 * Veo operations have no cancel and no lookup by anything the client sent.
 * `durationSeconds` goes as a string, as the Gemini API's table lists its values; Vertex AI's
 * reference types it an integer, and proto3 JSON reads a string for an integer field, so a string
 * is safe on both.
 */
import { enc, resolutionOf, stringField, type RelayDialectSpec, type SubmitPayload } from './relay-dialect-spec.ts';
import type { RelayChannelConfig } from './relay-config.ts';

/** A data URI as Veo's `Image`: base64 bytes and their MIME type. */
function veoImage(uri: string | undefined): { bytesBase64Encoded: string; mimeType: string } | undefined {
  const m = uri ? /^data:([\w.+-]+\/[\w.+-]+);base64,(.*)$/s.exec(uri) : null;
  return m ? { bytesBase64Encoded: m[2], mimeType: m[1] } : undefined;
}

function submitBody(p: SubmitPayload, channel: RelayChannelConfig): Record<string, unknown> {
  const image = veoImage(p.images[0]);
  const lastFrame = veoImage(p.lastFrame);
  return {
    instances: [
      {
        prompt: p.prompt,
        ...(image ? { image } : {}),
        ...(lastFrame ? { lastFrame } : {}),
        // Subject references ("asset"); routing never sends them with a frame (channel-inputs.ts).
        ...(p.referenceImages
          ? { referenceImages: p.referenceImages.map((uri) => ({ image: veoImage(uri), referenceType: 'asset' })) }
          : {}),
      },
    ],
    // A channel's `extra_body` goes into `parameters`, where Veo's own options live.
    parameters: {
      aspectRatio: p.ratio,
      durationSeconds: String(p.duration),
      resolution: resolutionOf(p.width, p.height),
      ...(p.seed !== undefined ? { seed: p.seed } : {}),
      ...channel.extraBody,
    },
  };
}

interface Operation {
  done?: unknown;
  error?: { message?: unknown; status?: unknown };
  response?: {
    generateVideoResponse?: {
      generatedSamples?: Array<{ video?: { uri?: unknown } }>;
      raiMediaFilteredReasons?: unknown;
    };
  };
}

export const VEO_DIALECT: RelayDialectSpec = {
  authScheme: 'x-goog-api-key',
  keyOnLinks: true,
  submitPath: (p) => `/v1beta/models/${enc(p.upstreamModel.replace(/^models\//, ''))}:predictLongRunning`,
  submitBody,
  idOf: (body) => stringField(body as Record<string, unknown> | undefined, 'name'),
  // The name is a path ("models/veo-3.1-generate-preview/operations/…"): its segments are kept.
  pollPath: (id) => `/v1beta/${id.split('/').map(enc).join('/')}`,
  state(_httpStatus, body) {
    const op = (body ?? {}) as Operation;
    if (op.done !== true) return { phase: 'pending' };
    if (op.error)
      return {
        phase: 'failed',
        errorCode: typeof op.error.status === 'string' ? op.error.status : undefined,
        reason: typeof op.error.message === 'string' ? op.error.message : undefined,
      };
    const answer = op.response?.generateVideoResponse;
    const uri = answer?.generatedSamples?.map((s) => s.video?.uri).find((u) => typeof u === 'string' && u);
    if (typeof uri === 'string') return { phase: 'succeeded', videoUrl: uri };
    // Done with no sample: Google's filters withheld it; the reasons are its own words.
    const reasons = Array.isArray(answer?.raiMediaFilteredReasons) ? answer.raiMediaFilteredReasons : [];
    return { phase: 'failed', moderated: true, reason: reasons.find((r) => typeof r === 'string') };
  },
};
