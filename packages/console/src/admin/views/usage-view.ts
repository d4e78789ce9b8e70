import { field, h, replace } from '../../app/dom.ts';
import type { AdminApi } from '../admin-api.ts';
import { seriesChart } from '../chart.ts';
import { section, type View } from '../ui.ts';

const HOUR = 3600;

/** Spend and rendered seconds per day (30 days) and per hour (48 hours), grouped by account, model or tier. */
export function usageView(api: AdminApi): View {
  const groupBy = h(
    'select',
    { id: 'usage-group' },
    ...['account', 'model', 'tier'].map((g) => h('option', { value: g }, g)),
  );
  const charts = h('div', { class: 'view' });
  const csv = h('button', { type: 'button', class: 'secondary' }, 'Export CSV');
  let destroyers: Array<() => void> = [];
  const load = async () => {
    const now = Math.floor(Date.now() / 1000);
    const group = groupBy.value;
    const [hours, days] = await Promise.all([
      api.get('/admin/v1/usage/series', { bucket: 'hour', group_by: group, since: now - 48 * HOUR }),
      api.get('/admin/v1/usage/series', { bucket: 'day', group_by: group, since: now - 30 * 24 * HOUR }),
    ]);
    for (const d of destroyers) d();
    const made = [
      seriesChart('Spend per hour, last 48 hours', hours.data, 'spend', group),
      seriesChart('Rendered seconds per hour, last 48 hours', hours.data, 'seconds', group),
      seriesChart('Spend per day, last 30 days', days.data, 'spend', group),
      seriesChart('Rendered seconds per day, last 30 days', days.data, 'seconds', group),
    ];
    destroyers = made.map((m) => m.destroy);
    replace(
      charts,
      ...made.map((m) => section(m.el.querySelector('figcaption')?.textContent?.split(' (')[0] ?? '', m.el)),
    );
  };
  groupBy.addEventListener('change', () => void load());
  csv.addEventListener('click', async () => {
    const since = Math.floor(Date.now() / 1000) - 30 * 24 * HOUR;
    const blob = await api.blob('/admin/v1/usage/series', {
      bucket: 'day',
      group_by: groupBy.value,
      since,
      format: 'csv',
    });
    const link = h('a', { href: URL.createObjectURL(blob), download: `usage-${groupBy.value}.csv` });
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
  });
  const el = h(
    'div',
    { class: 'view' },
    h('h1', {}, 'Usage'),
    h('div', { class: 'filters' }, field('Group by', groupBy), csv),
    charts,
  );
  return { el, refresh: load };
}
