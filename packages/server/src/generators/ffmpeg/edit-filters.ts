/**
 * An edit plan as ffmpeg filters (the bundled ffmpeg is 4.1: no xfade, no colortemperature).
 * Timing filters are separate (video-edit.ts), because reverse needs a pass of its own.
 */
import type { Adjustment, ColourLook, EditPlan } from './edit-plan.ts';
import type { Size } from './frame-resampler.ts';
import { sceneEditFilters } from './scene-edits.ts';

const LOOKS: Record<ColourLook, string[]> = {
  // Chroma to neutral in YUV itself: the frames come out exactly grey, not nearly.
  'black-and-white': ['hue=s=0', 'eq=contrast=1.06'],
  sepia: ['colorchannelmixer=.393:.769:.189:0:.349:.686:.168:0:.272:.534:.131'],
  warm: ['colorbalance=rs=.08:gs=.01:bs=-.09:rm=.11:gm=.03:bm=-.11:rh=.07:bh=-.07', 'eq=saturation=1.08'],
  cool: ['colorbalance=rs=-.08:bs=.09:rm=-.1:gm=.01:bm=.11:rh=-.06:bh=.07'],
  // The noise filter draws from a fixed seed, so the same edit gives the same grain.
  vintage: ['curves=preset=vintage', 'eq=saturation=.85:contrast=.95', 'vignette=PI/5', 'noise=alls=5:allf=t'],
  'teal-orange': [
    'colorbalance=rs=-.12:gs=.02:bs=.12:rm=-.03:bm=.03:rh=.12:gh=.03:bh=-.12',
    'eq=saturation=1.15:contrast=1.05',
  ],
  invert: ['negate'],
};

const ADJUST: Record<Adjustment, Partial<Record<'saturation' | 'brightness' | 'contrast', number>>> = {
  vivid: { saturation: 1.35 },
  muted: { saturation: 0.6 },
  brighter: { brightness: 0.07 },
  darker: { brightness: -0.07 },
  contrast: { contrast: 1.25 },
};

/**
 * Crop, colour (look, adjustments, time of day, season, weather) and blur of a plan, in that order,
 * for a picture of `size`; and the size they leave.
 */
export function pictureFilters(plan: EditPlan, size: Size): { filters: string[]; size: Size } {
  const filters: string[] = [];
  let out = size;
  if (plan.crop !== undefined) {
    out = cropSize(size, plan.crop);
    // Even offsets, so the crop keeps chroma aligned in yuv420p.
    const x = even((size.width - out.width) / 2);
    const y = even((size.height - out.height) / 2);
    if (out.width !== size.width || out.height !== size.height)
      filters.push(`crop=${out.width}:${out.height}:${x}:${y}`);
  }
  if (plan.look) filters.push(...LOOKS[plan.look]);
  const eq = adjustment(plan.adjust);
  if (eq) filters.push(eq);
  filters.push(...sceneEditFilters(plan.scene));
  if (plan.blur !== undefined) {
    // A share of the short side, so a blur looks the same at 360p and at 1080p.
    const sigma = Math.max(0.5, plan.blur * Math.min(out.width, out.height));
    filters.push(`gblur=sigma=${sigma.toFixed(2)}`);
  }
  return { filters, size: out };
}

/** The largest centred region of `ratio` (width / height), both sides even and at least 16. */
export function cropSize(size: Size, ratio: number): Size {
  if (size.width / size.height > ratio) return { width: Math.max(16, even(size.height * ratio)), height: size.height };
  return { width: size.width, height: Math.max(16, even(size.width / ratio)) };
}

function adjustment(adjust: Adjustment[]): string | undefined {
  if (adjust.length === 0) return undefined;
  const merged: Record<string, number> = {};
  for (const a of adjust) {
    for (const [key, value] of Object.entries(ADJUST[a])) {
      // Several words for one setting multiply (saturation, contrast) or add up (brightness).
      merged[key] = key === 'brightness' ? (merged[key] ?? 0) + value : (merged[key] ?? 1) * value;
    }
  }
  return `eq=${Object.entries(merged)
    .map(([k, v]) => `${k}=${v.toFixed(3)}`)
    .join(':')}`;
}

const even = (v: number) => 2 * Math.floor(v / 2);
