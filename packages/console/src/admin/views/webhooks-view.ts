import { field, h, replace } from '../../app/dom.ts';
import type { AdminApi } from '../admin-api.ts';
import { input, section, statusLine, table, when, type View } from '../ui.ts';

/** Endpoints failing first, failed deliveries with "Resend", "Recover" from a time, the operator webhook. */
export function webhooksView(api: AdminApi): View {
  const endpoints = h('div', {});
  const failed = h('div', {});
  const operator = h('div', {});
  const status = statusLine();
  const since = input('recover-since', { type: 'datetime-local' });
  const load = async () => {
    const [eps, dels, op] = await Promise.all([
      api.get('/admin/v1/webhooks', { order: 'failing', limit: 50 }),
      api.get('/admin/v1/deliveries', { status: 'failed', limit: 50 }),
      api.get('/admin/v1/operator-webhook').catch(() => null),
    ]);
    replace(
      endpoints,
      table(
        'Endpoints, failing first',
        ['Account', 'URL', 'Status', 'Delivered', 'Failed', 'Pending', ''],
        eps.data.map((e: any) => [
          e.account,
          e.url,
          e.status,
          String(e.deliveries.delivered),
          String(e.deliveries.failed),
          String(e.deliveries.pending),
          recoverButton(e.id),
        ]),
        [3, 4, 5],
      ),
    );
    replace(
      failed,
      table(
        'Failed deliveries',
        ['Account', 'URL', 'Event', 'Attempts', 'Last answer', 'Created', ''],
        dels.data.map((d: any) => [
          d.account,
          d.url,
          d.event_type,
          String(d.attempts),
          d.last_status_code ?? d.last_error ?? '—',
          when(d.created_at),
          resendButton(d.id),
        ]),
        [3],
      ),
    );
    replace(
      operator,
      h('p', {}, op?.url ? `Operator webhook: ${op.url}` : 'No operator webhook is set (VIDGEN_OPERATOR_WEBHOOK_URL).'),
    );
  };
  const resendButton = (id: string) => {
    const b = h('button', { type: 'button', class: 'secondary' }, 'Resend');
    b.addEventListener('click', async () => {
      try {
        await api.send('POST', `/admin/v1/deliveries/${encodeURIComponent(id)}/resend`);
        status.say('Sent again.');
        await load();
      } catch (err) {
        status.fail(err);
      }
    });
    return b;
  };
  const recoverButton = (id: string) => {
    const b = h('button', { type: 'button', class: 'secondary' }, 'Recover');
    b.addEventListener('click', async () => {
      const from = since.value
        ? Math.floor(Date.parse(`${since.value}Z`) / 1000)
        : Math.floor(Date.now() / 1000) - 86400;
      try {
        const r = await api.send('POST', `/admin/v1/webhooks/${encodeURIComponent(id)}/recover`, { since: from });
        status.say(`${r.queued} events queued again.`);
        await load();
      } catch (err) {
        status.fail(err);
      }
    });
    return b;
  };
  const el = h(
    'div',
    { class: 'view' },
    h('h1', {}, 'Webhooks'),
    status.el,
    section('Endpoints', field('Recover from (UTC; default: the last 24 hours)', since), endpoints),
    section('Failed deliveries', failed),
    section('Operator webhook', operator),
  );
  return { el, refresh: load };
}
