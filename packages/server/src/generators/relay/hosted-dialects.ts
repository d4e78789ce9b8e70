/**
 * Two hosted inference APIs as relay dialects, built from their public protocols:
 * - **fal queue API** (docs.fal.ai "Queue": queue.fal.run/{model_id} → request_id, status_url,
 *   response_url, cancel_url; GET …/requests/{id}/status → IN_QUEUE (queue_position) | IN_PROGRESS
 *   (logs) | COMPLETED; GET …/requests/{id} → the model's output; PUT …/requests/{id}/cancel;
 *   `Authorization: Key …`). Status, result and cancel live under the app id, the model id's first
 *   two segments (`fal-ai/kling-video` of `fal-ai/kling-video/v2/master/text-to-video`), as fal's
 *   clients build them.
 * - **Replicate predictions** (replicate.com/docs/reference/http: POST /v1/predictions {version,
 *   input} or /v1/models/{owner}/{name}/predictions {input} → 201 prediction; GET
 *   /v1/predictions/{id} → starting | processing | succeeded | failed | canceled, `output` a URL or
 *   a list, `error`, `metrics.predict_time`; POST /v1/predictions/{id}/cancel; Bearer token).
 * Neither lists requests by anything the client sent nor honours Idempotency-Key (docs/relays.md §6).
 */
import type { InputTemplate } from './relay-input-template.ts';
import { renderInputTemplate } from './relay-input-template.ts';
import { enc, phaseOf, stringField, type RelayDialectSpec, type UpstreamState } from './relay-dialect-spec.ts';

/** What most fal video models call their inputs (Kling, MiniMax, Veo on fal); channels override with `input`. */
export const FAL_DEFAULT_INPUT: InputTemplate = {
  prompt: '{{prompt}}',
  image_url: '{{image}}',
  duration: '{{duration|string}}',
  aspect_ratio: '{{ratio}}',
  seed: '{{seed}}',
};
/** What most Replicate video models call theirs. */
export const REPLICATE_DEFAULT_INPUT: InputTemplate = {
  prompt: '{{prompt}}',
  image: '{{image}}',
  duration: '{{duration}}',
  aspect_ratio: '{{ratio}}',
  seed: '{{seed}}',
};

const segments = (model: string) => model.split('/').filter(Boolean).map(enc);
const falApp = (model: string) => segments(model).slice(0, 2).join('/');

/** A video link in a model's output, whatever its shape: a URL, a list of them, `{video: {url}}`, `{videos: [...]}`. */
export function videoUrlIn(output: unknown, depth = 0): string | undefined {
  if (depth > 3 || output == null) return undefined;
  if (typeof output === 'string') return /^https?:\/\//i.test(output) ? output : undefined;
  if (Array.isArray(output)) return output.map((o) => videoUrlIn(o, depth + 1)).find(Boolean);
  if (typeof output === 'object') {
    const o = output as Record<string, unknown>;
    for (const key of ['video', 'videos', 'url', 'output']) {
      const found = videoUrlIn(o[key], depth + 1);
      if (found) return found;
    }
  }
  return undefined;
}

function seconds(metrics: unknown, ...names: string[]): Record<string, number> | undefined {
  const m = metrics as Record<string, unknown> | undefined;
  const out: Record<string, number> = {};
  for (const name of names)
    if (typeof m?.[name] === 'number' && Number.isFinite(m[name])) out[name] = m[name] as number;
  return Object.keys(out).length > 0 ? out : undefined;
}

function detailOf(body: unknown): string | undefined {
  const d = (body as { detail?: unknown } | undefined)?.detail;
  if (typeof d === 'string') return d;
  if (Array.isArray(d))
    return (
      d
        .map((x) => (typeof (x as { msg?: unknown })?.msg === 'string' ? (x as { msg: string }).msg : ''))
        .filter(Boolean)
        .join('; ') || undefined
    );
  return undefined;
}

export const FAL_DIALECT: RelayDialectSpec = {
  authScheme: 'Key',
  submitPath: (p) => `/${segments(p.upstreamModel).join('/')}`,
  submitBody: (p, channel) => ({ ...channel.extraBody, ...renderInputTemplate(channel.input ?? FAL_DEFAULT_INPUT, p) }),
  idOf: (body) => stringField(body as Record<string, unknown> | undefined, 'request_id'),
  pollPath: (id, model) => `/${falApp(model)}/requests/${enc(id)}/status`,
  cancel: { method: 'PUT', path: (id, model) => `/${falApp(model)}/requests/${enc(id)}/cancel` },
  result: {
    path: (id, model) => `/${falApp(model)}/requests/${enc(id)}`,
    read(httpStatus, body): UpstreamState {
      if (httpStatus === 200) {
        const videoUrl = videoUrlIn(body);
        return videoUrl ? { phase: 'succeeded', videoUrl } : { phase: 'failed', errorCode: 'no_video_output' };
      }
      // A request that failed answers its result with the error (422 validation, 500 model error).
      if (httpStatus >= 400 && httpStatus < 500 && httpStatus !== 429)
        return { phase: 'failed', reason: detailOf(body) };
      return { phase: 'unknown' };
    },
  },
  state(_httpStatus, body) {
    const b = (body ?? {}) as Record<string, unknown>;
    const phase = phaseOf(b.status);
    const metrics = seconds(b.metrics, 'inference_time');
    if (phase === 'succeeded' && b.error)
      return {
        phase: 'failed',
        reason: typeof b.error === 'string' ? b.error : undefined,
        errorCode: stringField(b, 'error_type'),
        metrics,
      };
    return { phase, metrics };
  },
};

export const REPLICATE_DIALECT: RelayDialectSpec = {
  authScheme: 'Bearer',
  // `owner/name:version` runs that version; `owner/name` the model's latest (official models).
  submitPath: (p) =>
    p.upstreamModel.includes(':') ? '/v1/predictions' : `/v1/models/${segments(p.upstreamModel).join('/')}/predictions`,
  submitBody: (p, channel) => {
    const input = { ...channel.extraBody, ...renderInputTemplate(channel.input ?? REPLICATE_DEFAULT_INPUT, p) };
    const version = p.upstreamModel.includes(':') ? p.upstreamModel.slice(p.upstreamModel.indexOf(':') + 1) : undefined;
    return version ? { version, input } : { input };
  },
  idOf: (body) => stringField(body as Record<string, unknown> | undefined, 'id'),
  pollPath: (id) => `/v1/predictions/${enc(id)}`,
  cancel: { method: 'POST', path: (id) => `/v1/predictions/${enc(id)}/cancel` },
  state(_httpStatus, body) {
    const b = (body ?? {}) as Record<string, unknown>;
    const phase = phaseOf(b.status);
    const metrics = seconds(b.metrics, 'predict_time', 'total_time');
    const reason = typeof b.error === 'string' ? b.error : undefined;
    if (phase !== 'succeeded')
      return { phase, reason, errorCode: b.status === 'canceled' ? 'canceled' : undefined, metrics };
    const videoUrl = videoUrlIn(b.output);
    return videoUrl ? { phase, videoUrl, metrics } : { phase: 'failed', errorCode: 'no_video_output', metrics };
  },
};
