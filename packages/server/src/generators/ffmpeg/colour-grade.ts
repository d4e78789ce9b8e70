/**
 * The plane mixes (frame-colour.ts) a frame is made with: a dissolve from anchor A to anchor B whose
 * two pictures are both brought to the same colours on the way (the mean and spread of each plane
 * travel from A's to B's as the dissolve does, so it never passes through a muddy double exposure),
 * and a grade towards the reference images' colours at some strength.
 */
import { FAILURES, TaskFailure } from '../../domain/task-failure.ts';
import { loadSharp } from '../../media/load-sharp.ts';
import { colourStats, packedYuv420, type ColourStats, type PlaneMix, type Triple } from './frame-colour.ts';

export interface Grade {
  to: ColourStats;
  /** 0: none; 1: the frame takes the references' mean and spread in Cb and Cr. */
  strength: number;
}

// A gain outside this range would blow a flat picture's grain up or crush a busy one flat.
const MIN_GAIN = 0.4;
const MAX_GAIN = 2.5;
// Of the grade's pull on chroma, the share it has on luma: the scene keeps part of its own light.
const LUMA_SHARE = 0.6;
// The side of the thumbnail each reference's colours are read from.
const SAMPLE_SIDE = 64;

const gain = (to: number, from: number) => Math.min(MAX_GAIN, Math.max(MIN_GAIN, to / from));
const lerp = (a: number, b: number, t: number) => a + (b - a) * t;

/**
 * A's picture dissolving into B's at `w` (0: A alone, unchanged; 1: B alone, unchanged), with both
 * matched to the colours in between; then `grade`. Without B, A alone (graded).
 */
export function dissolveMix(a: ColourStats, b: ColourStats | undefined, w: number, grade?: Grade): PlaneMix {
  const mix: PlaneMix = { a: [1, 1, 1], b: [0, 0, 0], c: [0, 0, 0] };
  const to = b ?? a;
  const t = b ? w : 0;
  for (let p = 0; p < 3; p++) {
    const mean = lerp(a.mean[p], to.mean[p], t);
    const spread = lerp(a.spread[p], to.spread[p], t);
    const ga = gain(spread, a.spread[p]);
    const gb = gain(spread, to.spread[p]);
    let fa = (1 - t) * ga;
    let fb = t * gb;
    let c = mean - fa * a.mean[p] - fb * to.mean[p];
    if (grade && grade.strength > 0) {
      // The mix's own mean and spread are `mean` and `spread`: move them towards the references'.
      const s = grade.strength * (p === 0 ? LUMA_SHARE : 1);
      const g = 1 + s * (gain(grade.to.spread[p], spread) - 1);
      fa *= g;
      fb *= g;
      c = c * g + (1 - g) * mean + s * (grade.to.mean[p] - mean);
    }
    mix.a[p] = fa;
    mix.b[p] = fb;
    mix.c[p] = c;
  }
  return mix;
}

/** Whether a mix leaves A exactly as it is (no dissolve, no grade): the frame is the cut itself. */
export function isIdentity(mix: PlaneMix): boolean {
  return mix.a.every((v) => v === 1) && mix.b.every((v) => v === 0) && mix.c.every((v) => v === 0);
}

/** The colours of the reference images together, each weighing the same whatever its size. */
export async function referenceColours(paths: string[]): Promise<ColourStats> {
  const sharp = await loadSharp();
  const size = { width: SAMPLE_SIDE, height: SAMPLE_SIDE };
  const each: ColourStats[] = [];
  for (const path of paths) {
    try {
      const rgb = await sharp(path)
        .rotate()
        .flatten({ background: '#000000' })
        .resize(SAMPLE_SIDE, SAMPLE_SIDE, { fit: 'fill' })
        .toColourspace('srgb')
        .removeAlpha()
        .raw()
        .toBuffer();
      each.push(colourStats(packedYuv420(rgb, size), size, 1));
    } catch (err) {
      if (err instanceof TaskFailure) throw err;
      throw FAILURES.invalidInput('A reference image could not be read.');
    }
  }
  // Pooled: the mean of the means, and the spread of all the samples together.
  const mean = [0, 1, 2].map((p) => each.reduce((sum, s) => sum + s.mean[p], 0) / each.length) as Triple;
  const spread = [0, 1, 2].map((p) => {
    const square = each.reduce((sum, s) => sum + s.spread[p] ** 2 + s.mean[p] ** 2, 0) / each.length;
    return Math.max(1, Math.sqrt(Math.max(0, square - mean[p] ** 2)));
  }) as Triple;
  return { mean, spread };
}
