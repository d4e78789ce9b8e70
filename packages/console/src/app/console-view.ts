import { AuthenticationError, SubmitOutcomeUnknown, type ModelObject, type VidgenClient } from '@vidgen/client';
import { h } from './dom.ts';
import { generateForm } from './generate-form.ts';
import { TaskList } from './task-list.ts';
import { BalanceView } from './balance-view.ts';
import { webhooksPanel } from './webhooks-panel.ts';

export interface ConsoleView {
  el: HTMLElement;
  /** The account's balance, for the page header. */
  balance: HTMLElement;
  destroy(): void;
}

/** The signed-in screen: "New video" beside "Your videos" (stacked on a phone), then models and webhooks. */
export function consoleView(
  client: VidgenClient,
  models: ModelObject[],
  signOut: (message?: string) => void,
): ConsoleView {
  let ended = false;
  const onError = (err: unknown): boolean => {
    // The submit may have created a task after all: the listing is where to look.
    if (err instanceof SubmitOutcomeUnknown) void tasks.load();
    if (!(err instanceof AuthenticationError)) return false;
    // A revoked key ends the session wherever it is noticed (once), instead of failing call by call.
    if (!ended) signOut(`Signed out: ${err.error?.message ?? 'the API key is no longer accepted.'}`);
    ended = true;
    return true;
  };
  const balance = new BalanceView(client, onError);
  const tasks = new TaskList(client, onError, models, () => balance.refresh());
  const form = generateForm({ client, models, onError, onCreated: (item, prompt) => tasks.add(item, prompt) });
  const webhooks = webhooksPanel(client, onError);
  const el = h('div', { class: 'layout' }, form, tasks.el, modelsPanel(models), webhooks.el);
  void tasks.load();
  balance.refresh();
  void webhooks.load();
  return { el, balance: balance.el, destroy: () => tasks.destroy() };
}

/** What the key may use, with each model's limits: the same facts the form enforces. */
function modelsPanel(models: ModelObject[]): HTMLElement {
  const rows = models.map((m) =>
    h(
      'tr',
      {},
      h('th', { scope: 'row' }, m.id),
      h('td', {}, m.family),
      h('td', {}, m.resolution),
      h('td', {}, durationText(m.durations)),
      h('td', {}, m.aspect_ratios.join(' ')),
      h('td', {}, capabilityText(m)),
    ),
  );
  return h(
    'details',
    { class: 'panel models-panel' },
    h('summary', {}, `Models available to this key (${models.length})`),
    h(
      'div',
      { class: 'table-scroll', tabindex: 0, role: 'region', 'aria-label': 'Models' },
      h(
        'table',
        {},
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ...['Model', 'Family', 'Resolution', 'Duration', 'Aspect ratios', 'Offers'].map((t) =>
              h('th', { scope: 'col' }, t),
            ),
          ),
        ),
        h('tbody', {}, ...rows),
      ),
    ),
  );
}

function durationText(durations: number[]): string {
  const min = Math.min(...durations);
  const max = Math.max(...durations);
  return min === max ? `${min} s` : `${min}–${max} s`;
}

function capabilityText(m: ModelObject): string {
  const offers = (['generate', 'edit', 'extend'] as const).filter((c) => m.capabilities[c]);
  return `${offers.join(', ') || 'nothing'}${m.requires_image ? '; needs an image' : ''}`;
}
