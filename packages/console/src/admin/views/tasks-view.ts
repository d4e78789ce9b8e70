import { field, h, replace } from '../../app/dom.ts';
import type { AdminApi } from '../admin-api.ts';
import { input, section, table, when, type View } from '../ui.ts';
import { ticksToUsd } from '../usd.ts';

const FILTERS = [
  ['Account', 'account'],
  ['Status', 'status'],
  ['Model', 'model'],
  ['Dialect', 'dialect'],
  ['Tier', 'tier'],
  ['Batch', 'batch'],
] as const;

/** Every account's tasks newest first, a page at a time, filtered; refreshed in place, so new tasks arrive. */
export function tasksView(api: AdminApi): View {
  const inputs = Object.fromEntries(FILTERS.map(([, name]) => [name, input(`filter-${name}`)]));
  const since = input('filter-since', { type: 'datetime-local' });
  const until = input('filter-until', { type: 'datetime-local' });
  const list = h('div', {});
  const more = h('button', { type: 'button', class: 'secondary', hidden: true }, 'Older tasks');
  let pages: Array<string | undefined> = [undefined];
  const seconds = (el: HTMLInputElement) =>
    el.value ? String(Math.floor(Date.parse(`${el.value}Z`) / 1000)) : undefined;
  const load = async () => {
    const after = pages.at(-1);
    const query: Record<string, string | undefined> = {
      after,
      limit: '50',
      since: seconds(since),
      until: seconds(until),
    };
    for (const [, name] of FILTERS) query[name] = inputs[name].value.trim() || undefined;
    const page = await api.get('/admin/v1/tasks', query);
    replace(
      list,
      table(
        'Tasks',
        ['Task', 'Account', 'Model', 'Status', 'Progress', 'Cost', 'Failure', 'Prompt', 'Submitted'],
        page.data.map((t: any) => [
          h('a', { href: `#/tasks/${encodeURIComponent(t.id)}` }, t.id.slice(0, 13)),
          t.account,
          t.model,
          t.status,
          `${t.progress}%`,
          ticksToUsd(t.cost_usd_ticks),
          t.error ? `${t.error.code}: ${t.error.message}` : '',
          t.prompt,
          when(t.created_at),
        ]),
        [4, 5],
      ),
    );
    more.hidden = !page.has_more;
    more.onclick = () => {
      pages = [...pages, page.last_id];
      void load();
    };
  };
  const form = h(
    'form',
    { class: 'filters', novalidate: true },
    ...FILTERS.map(([label, name]) => field(label, inputs[name])),
    field('Since (UTC)', since),
    field('Until (UTC)', until),
    h('button', { type: 'submit', class: 'primary' }, 'Filter'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    pages = [undefined];
    void load();
  });
  const el = h('div', { class: 'view' }, h('h1', {}, 'Tasks'), section('Filters', form), list, more);
  return { el, refresh: load };
}
