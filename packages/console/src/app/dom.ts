/**
 * The console's whole "framework": build elements from data. Text always goes in as text
 * nodes, never as HTML, so nothing a server or a user typed can become markup or script.
 */
export type Attrs = Record<string, string | number | boolean | undefined | null | ((event: Event) => void)>;
export type Child = Node | string | number | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (name === 'class') el.className = String(value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, ...children);
  return el;
}

export function append(parent: Element, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(typeof child === 'number' ? String(child) : child);
  }
}

/** Replaces everything inside `parent`. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing from the page`);
  return el as T;
}

/** A label + control pair; the label is always visible (no placeholder-only fields). */
export function field(label: string, control: HTMLElement, hint?: string): HTMLDivElement {
  const hintEl = hint ? h('p', { class: 'hint', id: `${control.id}-hint` }, hint) : null;
  const error = h('p', { class: 'field-error', id: `${control.id}-error`, hidden: true });
  control.setAttribute('aria-describedby', [hintEl?.id, error.id].filter(Boolean).join(' '));
  return h('div', { class: 'field' }, h('label', { for: control.id }, label), control, hintEl, error);
}

/** Shows (or with `undefined` clears) the message under a field made by `field()`. */
export function setFieldError(control: HTMLElement, message: string | undefined): void {
  const error = document.getElementById(`${control.id}-error`);
  if (error) {
    error.textContent = message ?? '';
    error.hidden = !message;
  }
  if (message) control.setAttribute('aria-invalid', 'true');
  else control.removeAttribute('aria-invalid');
}
