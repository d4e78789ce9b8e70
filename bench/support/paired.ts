import { loadavg } from 'node:os';

/** `--name value` from the command line, as a number, else the fallback. */
export function numberArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i >= 0) return Number(process.argv[i + 1]);
  const inline = process.argv.find((a) => a.startsWith(`--${name}=`));
  return inline ? Number(inline.slice(name.length + 3)) : fallback;
}

/** `--full` asks for the long profile; `npm run bench` runs the short one. */
export const FULL = process.argv.includes('--full');

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function load(): string {
  return `load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`;
}

export interface Paired {
  /** Median over rounds of subject/baseline, each round's two runs back to back. */
  ratio: number;
  baseline: number;
  subject: number;
  ratios: number[];
}

/**
 * Runs baseline and subject back to back `rounds` times, alternating which goes first, and takes
 * the median of the per-round ratios (not a ratio of medians: a round shares the machine's load).
 * Both return a rate (higher is better); pass `lowerIsBetter` for latencies.
 */
export async function paired(
  rounds: number,
  baseline: () => Promise<number>,
  subject: () => Promise<number>,
  lowerIsBetter = false,
): Promise<Paired> {
  const ratios: number[] = [];
  const bs: number[] = [];
  const ss: number[] = [];
  for (let round = 0; round < rounds; round++) {
    let b: number;
    let s: number;
    if (round % 2 === 0) {
      b = await baseline();
      s = await subject();
    } else {
      s = await subject();
      b = await baseline();
    }
    bs.push(b);
    ss.push(s);
    ratios.push(lowerIsBetter ? b / s : s / b);
  }
  return { ratio: median(ratios), baseline: median(bs), subject: median(ss), ratios };
}

export function describeRatios(p: Paired): string {
  return `ratio ${p.ratio.toFixed(2)} (median of ${p.ratios.length} paired: ${p.ratios.map((r) => r.toFixed(2)).join(' ')})`;
}
