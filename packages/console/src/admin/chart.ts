import uPlot from 'uplot';
import { h } from '../app/dom.ts';
import { table } from './ui.ts';
import { ticksToUsd } from './usd.ts';

export interface SeriesRow {
  start: number;
  group: string;
  tasks: number;
  spend_usd_ticks: number;
  rendered_seconds: number;
}

const COLOURS = ['#0b5cd5', '#c2410c', '#15803d', '#7e22ce', '#be123c', '#0e7490', '#a16207', '#4b5563'];

/**
 * One chart of a usage series (uPlot, on a canvas with time on its x axis) with its numbers under it
 * in a table: the text alternative names every group and its spend in USD, bucket by bucket.
 */
export function seriesChart(
  title: string,
  rows: SeriesRow[],
  measure: 'spend' | 'seconds',
  groupLabel: string,
): { el: HTMLElement; destroy(): void } {
  const starts = [...new Set(rows.map((r) => r.start))].sort((a, b) => a - b);
  const groups = [...new Set(rows.map((r) => r.group))].sort();
  const value = (r: SeriesRow) => (measure === 'spend' ? Number(r.spend_usd_ticks) / 1e10 : r.rendered_seconds);
  const data: uPlot.AlignedData = [
    starts,
    ...groups.map((g) =>
      starts.map((s) => {
        const row = rows.find((r) => r.start === s && r.group === g);
        return row ? value(row) : 0;
      }),
    ),
  ];
  const canvas = h('div', { class: 'chart-canvas', 'aria-hidden': 'true' });
  const captionId = `cap-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  const figure = h(
    'figure',
    { class: 'chart', 'aria-labelledby': captionId },
    h('figcaption', { id: captionId }, `${title} (the table under the chart holds its numbers)`),
    canvas,
    table(
      `${title}: numbers`,
      ['Start (UTC)', groupLabel, 'Spend (USD)', 'Rendered seconds', 'Tasks'],
      rows.map((r) => [
        new Date(r.start * 1000).toISOString().slice(0, 16).replace('T', ' '),
        r.group,
        ticksToUsd(r.spend_usd_ticks),
        String(r.rendered_seconds),
        String(r.tasks),
      ]),
      [2, 3, 4],
    ),
  );
  let plot: uPlot | undefined;
  // Drawn once the figure is in the page: uPlot sizes itself from its box.
  requestAnimationFrame(() => {
    if (!canvas.isConnected || starts.length === 0) return;
    const width = Math.max(240, Math.min(canvas.clientWidth || 600, 1100));
    plot = new uPlot(
      {
        width,
        height: 220,
        scales: { x: { time: true } },
        series: [
          {},
          ...groups.map((g, i) => ({
            label: g,
            stroke: COLOURS[i % COLOURS.length],
            width: 2,
            value: (_u: uPlot, v: number | null) => (v === null ? '—' : measure === 'spend' ? `$${v}` : `${v} s`),
          })),
        ],
        axes: [{}, { label: measure === 'spend' ? 'USD' : 'seconds', size: 60 }],
      },
      data,
      canvas,
    );
  });
  return { el: figure, destroy: () => plot?.destroy() };
}
