/**
 * Per-channel input templates for fal and Replicate, where every model names its inputs its own
 * way: a JSON object whose strings may name our request's values. A string that is exactly one
 * placeholder takes the value with its type (`"{{duration}}"` → 5; `"{{duration|string}}"` → "5");
 * a key whose whole value is a placeholder with no value (no image, no seed) is left out; inside
 * longer text a placeholder is replaced by its text. The other inputs: `{{last_frame}}` (a data
 * URI), `{{keyframes}}` (`[{image_url, timestamp_s}]`), `{{reference_images}}` and
 * `{{reference_audios}}` (lists of data URIs).
 */
import { PLACEHOLDER, WHOLE } from './input-placeholders.ts';
import { resolutionOf, type SubmitPayload } from './relay-dialect-spec.ts';

export type InputTemplate = Record<string, unknown>;

function valuesOf(p: SubmitPayload): Record<string, unknown> {
  return {
    prompt: p.prompt,
    image: p.images[0],
    images: p.images.length > 0 ? p.images : undefined,
    duration: p.duration,
    ratio: p.ratio,
    seed: p.seed,
    width: p.width,
    height: p.height,
    resolution: resolutionOf(p.width, p.height),
    size: `${p.width}x${p.height}`,
    // fal and Replicate models name it `generate_audio` too (Veo 3, Kling, LTX-2): a boolean.
    generate_audio: p.audio,
    last_frame: p.lastFrame,
    // Keyframes as a list of `{image_url, timestamp_s}`: each a data URI and its time in seconds.
    keyframes: p.keyframes?.map((k) => ({ image_url: k.image, timestamp_s: k.atSeconds })),
    reference_images: p.referenceImages,
    reference_audios: p.referenceAudios,
  };
}

export function renderInputTemplate(template: InputTemplate, p: SubmitPayload): Record<string, unknown> {
  return render(template, valuesOf(p)) as Record<string, unknown>;
}

function render(value: unknown, values: Record<string, unknown>): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    if (whole) return cast(values[whole[1]], whole[2]);
    return value.replace(PLACEHOLDER, (_m, name: string) => (values[name] === undefined ? '' : String(values[name])));
  }
  if (Array.isArray(value)) return value.map((v) => render(v, values)).filter((v) => v !== undefined);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const rendered = render(v, values);
      if (rendered !== undefined) out[k] = rendered;
    }
    return out;
  }
  return value;
}

function cast(value: unknown, as: string | undefined): unknown {
  if (value === undefined || as === undefined) return value;
  return as === 'string' ? String(value) : Number(value);
}
