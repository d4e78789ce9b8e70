import { h, replace } from '../../app/dom.ts';
import type { AdminApi } from '../admin-api.ts';
import { section, table, when, type View } from '../ui.ts';
import { ticksToUsd } from '../usd.ts';

/** Now (queued and running per model, the oldest waiting), the last 24 hours, spend today, open breakers. */
export function overviewView(api: AdminApi): View {
  const body = h('div', { class: 'view' });
  const el = h('div', { class: 'view' }, h('h1', {}, 'Overview'), body);
  return {
    el,
    async refresh() {
      const o = await api.get('/admin/v1/overview');
      const failedHours = o.last_24_hours.filter((x: { failed: number }) => x.failed > 0).length;
      // Counts stop at the cap, so the overview costs the same however long the queue: at it, "at least".
      const count = (n: number) => (n >= o.active_count_cap ? `${n.toLocaleString('en')}+` : String(n));
      replace(
        body,
        section(
          'Now',
          h('p', {}, `Oldest task waiting: submitted ${when(o.oldest_queued_at)}.`),
          table(
            'Queued and running tasks per model',
            ['Model', 'Queued', 'Running'],
            o.active.map((a: { model: string; queued: number; running: number }) => [
              a.model,
              count(a.queued),
              count(a.running),
            ]),
            [1, 2],
          ),
        ),
        section(
          'Spend',
          h(
            'p',
            {},
            `Today (UTC): ${ticksToUsd(o.spend_today_usd_ticks)}. ` +
              `Yesterday: ${ticksToUsd(o.spend_yesterday_usd_ticks)}.`,
          ),
        ),
        section(
          'Last 24 hours',
          h('p', {}, `Hours with failures: ${failedHours}.`),
          table(
            'Tasks finished and failed per hour',
            ['Hour (UTC)', 'Succeeded', 'Failed', 'Canceled'],
            o.last_24_hours.map((x: { hour: number; succeeded: number; failed: number; canceled: number }) => [
              when(x.hour),
              String(x.succeeded),
              String(x.failed),
              String(x.canceled),
            ]),
            [1, 2, 3],
          ),
          table(
            'Failure codes',
            ['Code', 'Tasks'],
            o.failure_codes.map((f: { code: string; count: number }) => [f.code, String(f.count)]),
            [1],
          ),
        ),
        section(
          'Channels not closed',
          table(
            'Channels whose breaker is open or half-open',
            ['Backend', 'Channel', 'Breaker', 'Opened'],
            o.channels_not_closed.map(
              (c: { backend: string; name: string; state: string; opened_at: number | null }) => [
                c.backend,
                c.name,
                c.state.replace('_', '-'),
                when(c.opened_at),
              ],
            ),
          ),
        ),
      );
    },
  };
}
