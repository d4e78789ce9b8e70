import { h, replace } from '../../app/dom.ts';
import type { AdminApi } from '../admin-api.ts';
import { section, statusLine, table, when, type View } from '../ui.ts';

/**
 * Relay channels: breaker, weight, load, requests, p50 and errors; enable, disable, "Test". ComfyUI hosts,
 * read-only: slots, and the busy slots and cooldown of the process that answered.
 */
export function channelsView(api: AdminApi): View {
  const list = h('div', {});
  const hosts = h('div', {});
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
    const [channels, comfy] = await Promise.all([api.get('/admin/v1/channels'), api.get('/admin/v1/comfyui-hosts')]);
    replace(
      hosts,
      table(
        'ComfyUI hosts',
        ['Host', 'Slots', 'Busy (this process)', 'Cooling down until (this process)', 'Backends'],
        comfy.data.map((c: any) => [
          c.name,
          String(c.slots),
          String(c.busy),
          c.cooling_down_until === null ? 'no' : when(Math.floor(c.cooling_down_until / 1000)),
          c.backends.join(', '),
        ]),
        [1, 2],
      ),
    );
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
        'Read-only: the hosts come from the ComfyUI config file. The cooldown after a failure, and the busy ',
        'slots, are kept per process: this is what the process that answered sees, and each worker may see a ',
        'host differently.',
      ),
      hosts,
    ),
  );
  return { el, refresh: load };
}
