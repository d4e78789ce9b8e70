/**
 * What the renderer's picture tests measure in decoded frames: PSNR against an expected picture,
 * and a picture's dominant colours (k-means in CIELAB, D65) compared by CIE76 ΔE, the Euclidean
 * distance in L*a*b*.
 */

export type Lab = [number, number, number];

/** PSNR in dB of two packed RGB pictures of the same size. */
export function psnr(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) throw new Error(`sizes differ: ${a.length} and ${b.length}`);
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] - b[i]) ** 2;
  return sum === 0 ? Infinity : 10 * Math.log10((255 * 255) / (sum / a.length));
}

const linear = (c: number) => {
  const v = c / 255;
  return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
};
const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : (24389 / 27 / 116) * t + 16 / 116);

/** sRGB (0..255) to CIELAB under D65. */
export function rgbToLab(r: number, g: number, b: number): Lab {
  const [lr, lg, lb] = [linear(r), linear(g), linear(b)];
  const x = (0.4124564 * lr + 0.3575761 * lg + 0.1804375 * lb) / 0.95047;
  const y = 0.2126729 * lr + 0.7151522 * lg + 0.072175 * lb;
  const z = (0.0193339 * lr + 0.119192 * lg + 0.9503041 * lb) / 1.08883;
  return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
}

export const deltaE76 = (a: Lab, b: Lab) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

/**
 * The `k` dominant colours of packed RGB pictures, pooled: k-means in Lab over every `step`-th pixel,
 * seeded deterministically at lightness quantiles, 20 rounds. Largest cluster first.
 */
export function dominantColours(pictures: Uint8Array[], k = 5, step = 5): Lab[] {
  const points: Lab[] = [];
  for (const rgb of pictures) {
    for (let i = 0; i + 2 < rgb.length; i += 3 * step) points.push(rgbToLab(rgb[i], rgb[i + 1], rgb[i + 2]));
  }
  const byLightness = [...points].sort((a, b) => a[0] - b[0]);
  let centres: Lab[] = Array.from({ length: k }, (_, j) => byLightness[Math.floor(((j + 0.5) / k) * points.length)]);
  let counts = new Array<number>(k).fill(0);
  for (let round = 0; round < 20; round++) {
    const sums = centres.map((): Lab => [0, 0, 0]);
    counts = new Array<number>(k).fill(0);
    for (const p of points) {
      let best = 0;
      for (let j = 1; j < k; j++) if (deltaE76(p, centres[j]) < deltaE76(p, centres[best])) best = j;
      for (let c = 0; c < 3; c++) sums[best][c] += p[c];
      counts[best]++;
    }
    centres = centres.map((old, j) => (counts[j] ? (sums[j].map((s) => s / counts[j]) as Lab) : old));
  }
  return centres
    .map((c, j) => ({ c, n: counts[j] }))
    .sort((a, b) => b.n - a.n)
    .map((x) => x.c);
}

/** Mean over `colours` of the ΔE76 to the nearest of `palette`. */
export function meanDistanceTo(colours: Lab[], palette: Lab[]): number {
  const nearest = colours.map((c) => Math.min(...palette.map((p) => deltaE76(c, p))));
  return nearest.reduce((a, b) => a + b, 0) / nearest.length;
}
