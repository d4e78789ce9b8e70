import { InvalidRequest, type ApiErrorCode } from '../../errors.ts';
import type { PlannedVideo, VideoAgreement } from '../../engine/task-service.ts';

/** What a foreign field says about the video: its length, shape, resolution, or width x height. */
export type ForeignKind = 'duration' | 'aspectRatio' | 'resolution' | 'size';

/**
 * The fields other dialects use for the video's length, shape and resolution, which this dialect
 * names otherwise or not at all: `seconds`, `duration`, `size`, `resolution`, `aspect_ratio`, `ratio`.
 * Unknown fields pass through (new-api, OpenRouter and LiteLLM clients send their own), but one of
 * these would change the video: it is accepted when the model's video agrees with it, else refused
 * naming the field and the models that render that value (invariant 4, docs/architecture.md).
 */
export type ForeignFields = Readonly<Record<string, ForeignKind>>;

/** The check a submit carries into the engine for the foreign fields present in `body`, if any. */
export function foreignAgreement(fields: ForeignFields | undefined, body: unknown): VideoAgreement | undefined {
  if (!fields || typeof body !== 'object' || body === null) return undefined;
  const sent = Object.entries(fields).filter(([name]) => Object.hasOwn(body, name) && (body as never)[name] != null);
  if (sent.length === 0) return undefined;
  return (video, offering) => {
    for (const [name, kind] of sent) {
      const raw = String((body as Record<string, unknown>)[name]).trim();
      const refusal = disagreement(kind, raw, video);
      if (!refusal) continue;
      const others = offering(refusal.want).filter((m) => m !== video.model);
      throw new InvalidRequest(
        refusal.code,
        `\`${name}\` '${raw}' would change the video: model '${video.model}' renders ${refusal.renders}. ` +
          (others.length > 0
            ? `Models that render ${refusal.asked}: ${others.join(', ')}.`
            : `No model available here renders ${refusal.asked}.`),
        name,
      );
    }
  };
}

interface Disagreement {
  code: ApiErrorCode;
  renders: string;
  asked: string;
  want: Partial<Pick<PlannedVideo, 'duration' | 'aspectRatio' | 'resolution'>>;
}

function disagreement(kind: ForeignKind, raw: string, video: PlannedVideo): Disagreement | undefined {
  switch (kind) {
    case 'duration': {
      const seconds = Number(raw.replace(/s$/, ''));
      if (seconds === video.duration) return undefined;
      return {
        code: 'unsupported_duration',
        renders: `${video.duration} s`,
        asked: `${raw} s`,
        want: { duration: seconds },
      };
    }
    case 'aspectRatio':
      if (raw === video.aspectRatio) return undefined;
      return { code: 'unsupported_aspect_ratio', renders: video.aspectRatio, asked: raw, want: { aspectRatio: raw } };
    case 'resolution': {
      const resolution = /^\d+$/.test(raw) ? `${raw}p` : raw.toLowerCase();
      if (resolution === video.resolution) return undefined;
      return { code: 'unsupported_resolution', renders: video.resolution, asked: raw, want: { resolution } };
    }
    case 'size': {
      const [width, height] = raw.split(/[x*×]/i).map(Number);
      if (width === video.width && height === video.height) return undefined;
      const want = sizeWant(width, height);
      return { code: 'unsupported_resolution', renders: `${video.width}x${video.height}`, asked: raw, want };
    }
  }
}

function sizeWant(width: number, height: number): Disagreement['want'] {
  if (!(width > 0 && height > 0)) return { resolution: 'none' };
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  const g = gcd(width, height);
  return { aspectRatio: `${width / g}:${height / g}`, resolution: `${Math.min(width, height)}p` };
}
