import { field, h, replace, setFieldError } from '../../app/dom.ts';
import type { AdminApi } from '../admin-api.ts';
import { input, section, statusLine, table, when, type View } from '../ui.ts';
import { ticksToUsd, usdToTicks } from '../usd.ts';
import { limitsText } from './accounts-view.ts';

/** One account: balance, keys (made and shown once, revoked, quotas), grants, settings, its ledger newest first. */
export function accountPage(api: AdminApi, id: string): View {
  const base = `/admin/v1/accounts/${encodeURIComponent(id)}`;
  const summary = h('div', {});
  const keys = h('div', {});
  const ledger = h('div', {});
  const newKey = h('div', { role: 'status' });
  const load = async () => {
    const [account, keyList, entries] = await Promise.all([
      api.get(base),
      api.get(`${base}/keys`),
      api.get('/admin/v1/ledger', { account: id, order: 'desc', limit: 50 }),
    ]);
    replace(
      summary,
      table(
        'Account',
        [
          'Metered',
          'Balance',
          'Held',
          'Available',
          'Limits',
          'Price group',
          'Balance alert',
          'Service tiers',
          'Zero retention',
        ],
        [
          [
            account.metered ? 'yes' : 'no',
            ticksToUsd(account.balance_usd_ticks),
            ticksToUsd(account.held_usd_ticks),
            ticksToUsd(account.available_usd_ticks),
            limitsText(account),
            account.price_group ?? '—',
            account.balance_alert_usd_ticks == null ? '—' : ticksToUsd(account.balance_alert_usd_ticks),
            account.service_tiers ? account.service_tiers.join(', ') : 'all',
            account.zero_retention ? 'on' : 'off',
          ],
        ],
      ),
    );
    replace(
      keys,
      table(
        'Keys',
        ['Key', 'Created', 'Revoked', 'Quota', ''],
        keyList.data.map((k: any) => [
          `${k.prefix}…`,
          when(k.created_at),
          when(k.revoked_at),
          k.quota ? `${k.quota.tasks_used}/${k.quota.max_tasks ?? '∞'} tasks (${k.quota.period})` : 'none',
          k.revoked_at
            ? ''
            : h(
                'div',
                { class: 'row-actions' },
                button('Revoke', () => api.send('DELETE', `${base}/keys/${k.id}`), load),
                button(
                  'Quota: 100 tasks a month',
                  () => api.send('PATCH', `${base}/keys/${k.id}`, { quota: { max_tasks: 100, period: 'month' } }),
                  load,
                ),
              ),
        ]),
      ),
    );
    replace(
      ledger,
      table(
        'Ledger, newest first',
        ['When', 'Kind', 'Amount', 'Task', 'Reason'],
        entries.data.map((e: any) => [
          when(e.created_at),
          e.kind,
          ticksToUsd(e.amount_usd_ticks),
          e.task_id ?? '—',
          e.reason,
        ]),
        [2],
      ),
    );
  };
  const createKey = h('button', { type: 'button', class: 'primary' }, 'Create key');
  createKey.addEventListener('click', async () => {
    const made = await api.send('POST', `${base}/keys`);
    const secret = h('code', { class: 'secret', id: 'new-key' }, made.key);
    const copy = h('button', { type: 'button', class: 'secondary' }, 'Copy');
    copy.addEventListener('click', () => void navigator.clipboard?.writeText(made.key));
    replace(newKey, h('p', {}, 'The new key, shown only now: '), secret, copy);
    await load();
  });
  const el = h(
    'div',
    { class: 'view' },
    h('h1', {}, `Account ${id}`),
    summary,
    section('Keys', createKey, newKey, keys),
    grantForm(api, base, load),
    settingsForm(api, base, load),
    section('Ledger', ledger),
  );
  return { el, refresh: load };
}

function button(label: string, act: () => Promise<unknown>, then: () => Promise<void>): HTMLButtonElement {
  const b = h('button', { type: 'button', class: 'secondary' }, label);
  b.addEventListener('click', async () => {
    await act();
    await then();
  });
  return b;
}

function grantForm(api: AdminApi, base: string, done: () => Promise<void>): HTMLElement {
  const amount = input('grant-amount', { inputmode: 'decimal' });
  const reason = input('grant-reason');
  const status = statusLine();
  const form = h(
    'form',
    { novalidate: true },
    field('Amount', amount, 'USD, above zero, up to 10 decimal places.'),
    field('Reason', reason),
    h('button', { type: 'submit', class: 'primary' }, 'Grant credits'),
    status.el,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const ticks = usdToTicks(amount.value, { positive: true });
    setFieldError(amount, ticks.error);
    setFieldError(reason, reason.value.trim() ? undefined : 'Say why.');
    if (ticks.error || !reason.value.trim()) return;
    try {
      const key = `grant-${crypto.randomUUID()}`;
      await api.send(
        'POST',
        `${base}/credits`,
        { amount_usd_ticks: Number(ticks.ticks), reason: reason.value.trim() },
        key,
      );
      status.say(`Granted ${ticksToUsd(ticks.ticks ?? 0)}.`);
      amount.value = '';
      await done();
    } catch (err) {
      status.fail(err);
    }
  });
  return section('Grant credits', form);
}

function settingsForm(api: AdminApi, base: string, done: () => Promise<void>): HTMLElement {
  const rpm = input('set-rpm', { inputmode: 'numeric' });
  const group = input('set-group');
  const alert = input('set-alert', { inputmode: 'decimal' });
  const tiers = input('set-tiers');
  const zeroRetention = h(
    'select',
    { id: 'set-zero-retention', name: 'set-zero-retention' },
    h('option', { value: '' }, 'Unchanged'),
    h('option', { value: 'on' }, 'On'),
    h('option', { value: 'off' }, 'Off'),
  );
  const status = statusLine();
  const form = h(
    'form',
    { novalidate: true },
    field('Requests per minute', rpm, 'Empty: unchanged; 0 or "none": no limit.'),
    field('Price group', group, 'Empty: unchanged; "none": the catalog’s prices.'),
    field('Balance alert', alert, 'USD; empty: unchanged; "none": no alert.'),
    field('Allowed service tiers', tiers, 'Comma-separated (priority, default, flex); "all": every tier.'),
    field(
      'Zero retention',
      zeroRetention,
      'On: every submit must name an upload URL, and a video is deleted here once delivered there.',
    ),
    h('button', { type: 'submit', class: 'primary' }, 'Save settings'),
    status.el,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body: Record<string, unknown> = {};
    const none = (v: string) => ['none', '0'].includes(v.trim().toLowerCase());
    if (rpm.value.trim()) body.limits = { requests_per_minute: none(rpm.value) ? null : Number(rpm.value) };
    if (group.value.trim()) body.price_group = none(group.value) ? null : group.value.trim();
    if (alert.value.trim()) {
      const ticks = none(alert.value) ? { ticks: undefined } : usdToTicks(alert.value, { positive: true });
      setFieldError(alert, ticks.error);
      if (ticks.error) return;
      body.balance_alert_usd_ticks = ticks.ticks === undefined ? null : Number(ticks.ticks);
    }
    if (tiers.value.trim())
      body.service_tiers = tiers.value.trim() === 'all' ? null : tiers.value.split(',').map((t) => t.trim());
    if (zeroRetention.value) body.zero_retention = zeroRetention.value === 'on';
    try {
      await api.send('PATCH', base, body);
      status.say('Saved.');
      await done();
    } catch (err) {
      status.fail(err);
    }
  });
  return section('Settings', form);
}
