import type { VidgenClient, WebhookEndpoint } from '@vidgen/client';
import { h } from './dom.ts';
import { announce } from './announce.ts';
import { describeError } from './describe-error.ts';

/**
 * The signed-in account's webhook endpoints (GET /v1/webhooks) with their state. An endpoint the
 * server disabled (it answered 410) or the account disabled can be enabled again here; one the
 * operator disabled only by the operator. The panel opens by itself when an endpoint is disabled.
 */
export function webhooksPanel(
  client: VidgenClient,
  onError: (err: unknown) => boolean,
): { el: HTMLElement; load(): Promise<void> } {
  const title = h('summary', {}, 'Webhook endpoints');
  const list = h('ul', { class: 'webhooks' });
  const status = h('p', { class: 'hint', role: 'status' });
  const el = h('details', { class: 'panel webhooks-panel' }, title, status, list);

  const load = async () => {
    try {
      const endpoints = (await client.webhooks.list()).data;
      title.textContent = `Webhook endpoints (${endpoints.length})`;
      status.textContent = endpoints.length
        ? ''
        : 'No webhook endpoints. Register one with POST /v1/webhooks (docs/webhooks.md).';
      list.replaceChildren(...endpoints.map((e) => row(e)));
      if (endpoints.some((e) => e.status === 'disabled')) el.open = true;
    } catch (err) {
      if (!onError(err)) status.textContent = `Could not load your webhook endpoints: ${describeError(err).message}`;
    }
  };

  const row = (e: WebhookEndpoint): HTMLLIElement => {
    const detail = h('p', { class: 'task-detail error', hidden: e.status === 'enabled' }, e.disabled_reason ?? '');
    const enable = h(
      'button',
      { type: 'button', class: 'secondary', 'aria-describedby': `webhook-${e.id}-url` },
      'Enable',
    );
    enable.hidden = e.status === 'enabled' || e.disabled_by === 'operator';
    if (e.disabled_by === 'operator')
      detail.textContent = `${e.disabled_reason ?? 'Disabled by the operator.'} Only the operator can enable it again.`;
    enable.addEventListener('click', async () => {
      enable.disabled = true;
      try {
        const updated = await client.webhooks.update(e.id, { enabled: true });
        li.replaceWith(row(updated));
        announce(`Webhook endpoint ${updated.url} enabled.`);
      } catch (err) {
        enable.disabled = false;
        if (!onError(err)) detail.textContent = `Could not enable it: ${describeError(err).message}`;
      }
    });
    const li = h(
      'li',
      { class: 'webhook', 'data-webhook-id': e.id, 'data-status': e.status },
      h(
        'div',
        { class: 'task-head' },
        h('code', { class: 'webhook-url', id: `webhook-${e.id}-url` }, e.url),
        h('span', { class: `webhook-status ${e.status}` }, e.status === 'enabled' ? 'Enabled' : 'Disabled'),
      ),
      h('p', { class: 'hint' }, e.events.join(', ')),
      detail,
      h('div', { class: 'task-actions' }, enable),
    );
    return li;
  };

  return { el, load };
}
