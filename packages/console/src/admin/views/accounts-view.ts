import { field, h, replace, setFieldError } from '../../app/dom.ts';
import type { AdminApi } from '../admin-api.ts';
import { input, section, statusLine, table, when, type View } from '../ui.ts';
import { ticksToUsd, usdToTicks } from '../usd.ts';

type Account = Record<string, any>;

export function limitsText(a: Account): string {
  const l = a.limits ?? {};
  const parts = [
    l.requests_per_minute != null && `${l.requests_per_minute}/min`,
    l.max_active_tasks != null && `${l.max_active_tasks} active`,
    l.max_task_usd_ticks != null && `${ticksToUsd(l.max_task_usd_ticks)}/task`,
    l.max_daily_usd_ticks != null && `${ticksToUsd(l.max_daily_usd_ticks)}/day`,
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : 'none';
}

/** Every account, searched by id prefix and paged; "New account" with credits, limits and price group. */
export function accountsView(api: AdminApi): View {
  const search = input('account-prefix', { type: 'search' });
  const list = h('div', {});
  const more = h('button', { type: 'button', class: 'secondary', hidden: true }, 'Next page');
  let after: string | undefined;
  const load = async (reset: boolean) => {
    if (reset) after = undefined;
    const page = await api.get('/admin/v1/accounts', { prefix: search.value.trim(), after, limit: 50 });
    replace(
      list,
      table(
        'Accounts',
        ['Account', 'Metered', 'Balance', 'Held', 'Available', 'Limits', 'Price group', 'Created'],
        page.data.map((a: Account) => [
          h('a', { href: `#/accounts/${encodeURIComponent(a.id)}` }, a.id),
          a.metered ? 'yes' : 'no',
          ticksToUsd(a.balance_usd_ticks),
          ticksToUsd(a.held_usd_ticks),
          ticksToUsd(a.available_usd_ticks),
          limitsText(a),
          a.price_group ?? '—',
          when(a.created_at),
        ]),
        [2, 3, 4],
      ),
    );
    more.hidden = !page.has_more;
    more.onclick = () => {
      after = page.last_id ?? undefined;
      void load(false);
    };
  };
  search.addEventListener('input', () => void load(true));
  const el = h(
    'div',
    { class: 'view' },
    h('h1', {}, 'Accounts'),
    section('Find', h('div', { class: 'filters' }, field('Account id starts with', search)), list, more),
    newAccountForm(api, () => load(true)),
  );
  return { el, refresh: () => load(after === undefined) };
}

function newAccountForm(api: AdminApi, done: () => Promise<void>): HTMLElement {
  const id = input('new-account-id', { required: true });
  const credits = input('new-account-credits', { inputmode: 'decimal' });
  const rpm = input('new-account-rpm', { inputmode: 'numeric' });
  const active = input('new-account-active', { inputmode: 'numeric' });
  const group = input('new-account-group');
  const status = statusLine();
  const form = h(
    'form',
    { novalidate: true },
    field('Account id', id),
    field('Credits', credits, 'USD, up to 10 decimal places; leave empty for an unmetered account.'),
    field('Requests per minute (optional)', rpm),
    field('Most active tasks (optional)', active),
    field('Price group (optional)', group),
    h('button', { type: 'submit', class: 'primary' }, 'Create account'),
    status.el,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const amount = credits.value.trim() ? usdToTicks(credits.value) : {};
    setFieldError(credits, amount.error);
    setFieldError(id, id.value.trim() ? undefined : 'Enter an account id.');
    if (amount.error || !id.value.trim()) return;
    const limits: Record<string, number> = {};
    if (rpm.value.trim()) limits.requests_per_minute = Number(rpm.value);
    if (active.value.trim()) limits.max_active_tasks = Number(active.value);
    try {
      await api.send('POST', '/admin/v1/accounts', {
        id: id.value.trim(),
        ...(amount.ticks ? { credits_usd_ticks: Number(amount.ticks) } : {}),
        ...(Object.keys(limits).length ? { limits } : {}),
        ...(group.value.trim() ? { price_group: group.value.trim() } : {}),
      });
      status.say(`Account ${id.value.trim()} created.`);
      location.hash = `#/accounts/${encodeURIComponent(id.value.trim())}`;
      await done();
    } catch (err) {
      status.fail(err);
    }
  });
  return section('New account', form);
}
