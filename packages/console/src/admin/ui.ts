import { h, type Child } from '../app/dom.ts';
import { describeError } from '../app/describe-error.ts';

/** A view of the console: its element, a refresh (every 5 s while visible), and what to stop when left. */
export interface View {
  el: HTMLElement;
  refresh(): Promise<void>;
}

/** A table that scrolls inside its own box, so the page never scrolls sideways; every cell is text. */
export function table(caption: string, headers: string[], rows: Child[][], numeric: number[] = []): HTMLElement {
  return h(
    'div',
    { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': caption },
    h(
      'table',
      { class: 'data' },
      h('caption', { class: 'visually-hidden' }, caption),
      h('thead', {}, h('tr', {}, ...headers.map((x) => h('th', { scope: 'col' }, x)))),
      h(
        'tbody',
        {},
        ...(rows.length === 0
          ? [h('tr', {}, h('td', { colspan: headers.length }, 'Nothing yet.'))]
          : rows.map((r) =>
              h('tr', {}, ...r.map((c, i) => h('td', { class: numeric.includes(i) ? 'num' : 'cell-text' }, c))),
            )),
      ),
    ),
  );
}

/** Unix seconds as a UTC time a person reads. */
export function when(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '—';
  return new Date(seconds * 1000)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
}

export function section(title: string, ...children: Child[]): HTMLElement {
  const id = `h-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return h('section', { class: 'panel', 'aria-labelledby': id }, h('h2', { id }, title), ...children);
}

/** A status line for a form: errors in words, from the API's own message. */
export function statusLine(): { el: HTMLElement; say(text: string): void; fail(err: unknown): void } {
  const el = h('p', { class: 'form-error', role: 'status' });
  return {
    el,
    say: (text) => {
      el.className = 'hint';
      el.textContent = text;
    },
    fail: (err) => {
      el.className = 'form-error';
      el.textContent = describeError(err).message;
    },
  };
}

/** An input with its label (ids are unique per console). */
export function input(id: string, attrs: Record<string, string | boolean> = {}): HTMLInputElement {
  return h('input', { id, name: id, autocomplete: 'off', ...attrs });
}

/** Runs `refresh` every 5 s while the page is visible, and once more when it becomes visible again. */
export function autoRefresh(refresh: () => Promise<void>): () => void {
  let running = false;
  const tick = async () => {
    if (running || document.visibilityState !== 'visible') return;
    running = true;
    try {
      await refresh();
    } catch {
      /* the view shows its own errors; the next tick tries again */
    } finally {
      running = false;
    }
  };
  const timer = setInterval(tick, 5000);
  document.addEventListener('visibilitychange', tick);
  return () => {
    clearInterval(timer);
    document.removeEventListener('visibilitychange', tick);
  };
}
