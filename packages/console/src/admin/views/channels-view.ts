import { h, replace } from '../../app/dom.ts';
import type { AdminApi } from '../admin-api.ts';
import { section, statusLine, table, type View } from '../ui.ts';

/** Relay channels: breaker, weight, load, requests, p50 and errors; enable, disable, "Test". */
export function channelsView(api: AdminApi): View {
  const list = h('div', {});
  const status = statusLine();
  const act = (label: string, run: () => Promise<unknown>) => {
    const b = h('button', { type: 'button', class: 'secondary' }, label);
    b.addEventListener('click', async () => {
      try {
        const answer: any = await run();
        status.say(answer?.message ?? `${label}: done.`);
        await load();
      } catch (err) {
        status.fail(err);
      }
    });
    return b;
  };
  const load = async () => {
    const channels = await api.get('/admin/v1/channels');
    replace(
      list,
      table(
        'Relay channels',
        [
          'Backend',
          'Channel',
          'Enabled',
          'Breaker',
          'Weight',
          'Running',
          'Requests (1 min)',
          'p50 (5 min)',
          'Errors (5 min)',
          '',
        ],
        channels.data.map((c: any) => {
          const path = `/admin/v1/channels/${encodeURIComponent(c.backend)}/${encodeURIComponent(c.name)}`;
          return [
            c.backend,
            c.name,
            c.enabled ? 'yes' : 'no',
            c.state.replace('_', '-'),
            String(c.weight),
            String(c.running),
            String(c.requests_last_minute),
            c.p50_latency_ms === null ? '—' : `${c.p50_latency_ms} ms`,
            c.error_rate === null ? '—' : `${Math.round(c.error_rate * 100)}%`,
            h(
              'div',
              { class: 'row-actions' },
              act(c.enabled ? `Disable ${c.name}` : `Enable ${c.name}`, () =>
                api.send('PATCH', path, { enabled: !c.enabled }),
              ),
              act(`Test ${c.name}`, () => api.send('POST', `${path}/test`)),
            ),
          ];
        }),
        [4, 5, 6],
      ),
    );
  };
  const el = h(
    'div',
    { class: 'view' },
    h('h1', {}, 'Channels'),
    section('Relay channels', list, status.el),
    section(
      'ComfyUI hosts',
      h(
        'p',
        {},
        'ComfyUI hosts are read-only here and listed with their slots in the ',
        'server log and /metrics. Their cooldown after a failure is kept per process, so each worker may see a ',
        'host differently.',
      ),
    ),
  );
  return { el, refresh: load };
}
