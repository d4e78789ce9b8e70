import { InvalidRequest } from '../../errors.ts';

/** The ratios a size is read as when it is within 1 % of one (854x480 is 16:9, as players show it). */
const NAMED_RATIOS = ['16:9', '9:16', '1:1', '4:3', '3:4', '3:2', '2:3', '21:9', '9:21'];
const TOLERANCE = 0.01;

const value = (ratio: string) => {
  const [w, h] = ratio.split(':').map(Number);
  return w / h;
};

/**
 * OpenRouter's `aspect_ratio`, `size` (the AI SDK's `resolution`, `1280x720`) and `resolution`
 * (`720p`) in the engine's words. A size carries a shape and a resolution (its short side); where
 * the body also names them, they must agree with it: a size and an aspect ratio that disagree are a
 * 400 naming `aspect_ratio`, a size and a resolution a 400 naming `resolution`.
 */
export function openRouterShape(body: { aspect_ratio?: string; size?: string; resolution?: string }): {
  aspectRatio?: string;
  resolution?: string;
} {
  const { aspect_ratio: aspectRatio, resolution } = body;
  if (body.size === undefined) return { aspectRatio, resolution };
  const match = /^([1-9]\d{1,4})[x*×]([1-9]\d{1,4})$/i.exec(body.size.trim());
  if (!match)
    throw new InvalidRequest('invalid_value', '`size` must be width x height in pixels, such as "1280x720".', 'size');
  const [width, height] = [Number(match[1]), Number(match[2])];
  const sizeResolution = `${Math.min(width, height)}p`;
  if (aspectRatio !== undefined) {
    const asked = /^(\d{1,3}):(\d{1,3})$/.test(aspectRatio) ? value(aspectRatio) : Number.NaN;
    if (!(Math.abs(width / height / asked - 1) <= TOLERANCE))
      throw new InvalidRequest(
        'invalid_aspect_ratio',
        `\`aspect_ratio\` '${aspectRatio}' disagrees with \`size\` '${body.size}'; send one, or both alike.`,
        'aspect_ratio',
      );
  }
  if (resolution !== undefined && resolution.toLowerCase() !== sizeResolution)
    throw new InvalidRequest(
      'unsupported_resolution',
      `\`resolution\` '${resolution}' disagrees with \`size\` '${body.size}' (${sizeResolution}); ` +
        'send one, or both alike.',
      'resolution',
    );
  return { aspectRatio: aspectRatio ?? ratioOf(width, height), resolution: sizeResolution };
}

function ratioOf(width: number, height: number): string {
  const named = NAMED_RATIOS.find((ratio) => Math.abs(width / height / value(ratio) - 1) <= TOLERANCE);
  if (named) return named;
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  const g = gcd(width, height);
  return `${width / g}:${height / g}`;
}
