import { field, h, replace, setFieldError } from '../../app/dom.ts';
import type { AdminApi } from '../admin-api.ts';
import { input, section, statusLine, table, when, type View } from '../ui.ts';
import { ticksToUsd, usdToTicks } from '../usd.ts';

/** One task: timeline, inputs, output, ledger, deliveries; "Cancel" and "Refund". */
export function taskPage(api: AdminApi, id: string): View {
  const path = `/admin/v1/tasks/${encodeURIComponent(id)}`;
  const body = h('div', { class: 'view' });
  const media = h('div', {});
  let shownVideo: string | undefined;
  const load = async () => {
    const t = await api.get(path);
    // The player is built once: a refresh must not restart the video being watched.
    if (t.content_url && !shownVideo) {
      shownVideo = t.content_url;
      replace(
        media,
        h('video', { controls: true, src: t.content_url, poster: t.poster_url, preload: 'metadata', width: 320 }),
      );
    }
    replace(
      body,
      table(
        'Task',
        ['Account', 'Model', 'Dialect', 'Tier', 'Batch', 'Status', 'Progress', 'Cost', 'Failure', 'Prompt'],
        [
          [
            t.account,
            t.model,
            t.dialect,
            t.tier,
            t.batch ?? '—',
            t.status,
            `${t.progress}%`,
            ticksToUsd(t.cost_usd_ticks),
            t.error ? `${t.error.code}: ${t.error.message}` : '—',
            t.prompt,
          ],
        ],
      ),
      section(
        'Timeline',
        table(
          'Timeline',
          ['When', 'Event', 'Attempt', 'Worker', 'Detail'],
          t.timeline.map((e: any) => [when(e.at), e.event, e.attempt ?? '', e.worker ?? '', e.detail ?? '']),
        ),
      ),
      section('Inputs', inputsOf(t)),
      section(
        'Ledger',
        table(
          'Ledger entries',
          ['When', 'Kind', 'Amount', 'Reason'],
          t.ledger.map((e: any) => [when(e.created_at), e.kind, ticksToUsd(e.amount_usd_ticks), e.reason]),
          [2],
        ),
      ),
      section(
        'Webhook deliveries',
        table(
          'Deliveries',
          ['Event', 'Status', 'Attempts', 'Last answer', 'Created'],
          t.deliveries.map((d: any) => [
            d.event_type,
            d.status,
            String(d.attempts),
            d.last_status_code ?? d.last_error ?? '—',
            when(d.created_at),
          ]),
        ),
      ),
    );
  };
  const status = statusLine();
  const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
  cancel.addEventListener('click', async () => {
    try {
      await api.send('POST', `${path}/cancel`);
      status.say('Canceled.');
      await load();
    } catch (err) {
      status.fail(err);
    }
  });
  const el = h(
    'div',
    { class: 'view' },
    h('h1', {}, `Task ${id}`),
    media,
    body,
    section('Actions', h('div', { class: 'row-actions' }, cancel), status.el, refundForm(api, path, load)),
  );
  return { el, refresh: load };
}

/** Thumbnails of the inputs that have a link; the output's first frame (its poster) beside them. */
function inputsOf(t: any): HTMLElement {
  const items = t.inputs.map((i: any) =>
    h(
      'li',
      {},
      i.role,
      ': ',
      i.url ? h('img', { src: i.url, alt: `${i.role} input`, width: 96 }) : `${i.source} (stored)`,
    ),
  );
  if (t.poster_url)
    items.push(h('li', {}, 'first frame: ', h('img', { src: t.poster_url, alt: 'first frame', width: 96 })));
  return items.length ? h('ul', {}, ...items) : h('p', {}, 'No inputs: a prompt only.');
}

function refundForm(api: AdminApi, path: string, done: () => Promise<void>): HTMLElement {
  const amount = input('refund-amount', { inputmode: 'decimal' });
  const reason = input('refund-reason');
  const status = statusLine();
  const form = h(
    'form',
    { novalidate: true },
    field('Amount', amount, 'USD; empty: all it was charged.'),
    field('Reason', reason),
    h('button', { type: 'submit', class: 'primary' }, 'Refund'),
    status.el,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const ticks = amount.value.trim() ? usdToTicks(amount.value, { positive: true }) : {};
    setFieldError(amount, ticks.error);
    setFieldError(reason, reason.value.trim() ? undefined : 'Say why.');
    if (ticks.error || !reason.value.trim()) return;
    try {
      const body = { reason: reason.value.trim(), ...(ticks.ticks ? { amount_usd_ticks: Number(ticks.ticks) } : {}) };
      const made = await api.send('POST', `${path}/refund`, body);
      status.say(`Refunded ${ticksToUsd(made.entry.amount_usd_ticks)}.`);
      await done();
    } catch (err) {
      status.fail(err);
    }
  });
  return section('Refund', form);
}
