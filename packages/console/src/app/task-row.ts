import { h } from './dom.ts';
import { inputList, type InputThumb } from './input-thumbnails.ts';
import { formatCreated, formatElapsed, isCanceled, statusLabel, timingText, type TaskItem } from './task-item.ts';

export interface RowActions {
  cancel(item: TaskItem, row: TaskRow): void;
  play(item: TaskItem, row: TaskRow): void;
  /** Edit or extend a finished video; absent when no model the key may use offers it. */
  edit?(item: TaskItem, row: TaskRow): void;
  extend?(item: TaskItem, row: TaskRow): void;
}

/** One task in the list. Built once, then patched in place so focus and a playing video survive updates. */
export class TaskRow {
  readonly el: HTMLLIElement;
  readonly player: HTMLDivElement;
  private item: TaskItem;
  private readonly status = h('span', { class: 'task-status' });
  private readonly progress = h('progress', { max: 100, value: 0 });
  private readonly elapsed = h('span', { class: 'task-elapsed' });
  private readonly detail = h('p', { class: 'task-detail', hidden: true });
  private readonly cancelButton = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
  private readonly playButton = h('button', { type: 'button' }, 'Play');
  private readonly editButton = h('button', { type: 'button', class: 'secondary' }, 'Edit');
  private readonly extendButton = h('button', { type: 'button', class: 'secondary' }, 'Extend');
  private readonly poster = h('div', { class: 'task-poster', 'aria-hidden': 'true' });
  private readonly prompt = h('p', { class: 'task-prompt' });
  private readonly timing = h('p', { class: 'task-timing' });
  /** Where the edit/extend form opens. */
  readonly remix = h('div', { class: 'task-remix' });
  private readonly canRemix: { edit: boolean; extend: boolean };

  constructor(item: TaskItem, prompt: string | undefined, actions: RowActions, inputs?: readonly InputThumb[]) {
    this.item = item;
    const when = formatCreated(item.createdAt);
    const head = `task-${item.id}-head`;
    // Every row has a "Play" and a "Cancel": the row's heading tells a screen reader which one this is.
    for (const button of [this.cancelButton, this.playButton, this.editButton, this.extendButton])
      button.setAttribute('aria-describedby', head);
    this.canRemix = { edit: !!actions.edit, extend: !!actions.extend };
    this.editButton.addEventListener('click', () => actions.edit?.(this.item, this));
    this.extendButton.addEventListener('click', () => actions.extend?.(this.item, this));
    this.progress.setAttribute('aria-label', `Progress of ${item.model} ${when}`);
    this.playButton.setAttribute('aria-controls', `player-${item.id}`);
    this.cancelButton.addEventListener('click', () => actions.cancel(this.item, this));
    this.playButton.addEventListener('click', () => actions.play(this.item, this));
    this.player = h('div', { class: 'task-player', id: `player-${item.id}` });
    this.el = h(
      'li',
      {
        class: 'task',
        tabindex: -1,
        'data-task-id': item.id,
        'data-family': item.family,
        'data-created': item.createdAt,
      },
      this.poster,
      h(
        'div',
        { class: 'task-body' },
        h(
          'div',
          { class: 'task-head', id: head },
          h('span', { class: 'task-model' }, item.model),
          h('span', { class: 'badge', title: `API family ${item.family}` }, item.family),
          h('code', { class: 'task-id', title: item.id }, `…${item.id.slice(-8)}`),
          h('time', { class: 'task-created', datetime: new Date(item.createdAt).toISOString() }, when),
        ),
        this.prompt,
        inputs?.length ? inputList(inputs) : null,
        h('div', { class: 'task-state' }, this.status, this.progress, this.elapsed),
        this.timing,
        this.detail,
        h('div', { class: 'task-actions' }, this.cancelButton, this.playButton, this.editButton, this.extendButton),
        this.remix,
      ),
      this.player,
    );
    this.update({ ...item, prompt: item.prompt ?? prompt });
  }

  get current(): TaskItem {
    return this.item;
  }

  update(item: TaskItem): void {
    const focused = document.activeElement;
    this.item = item;
    const pending = item.phase === 'pending';
    Object.assign(this.el.dataset, { phase: isCanceled(item) ? 'canceled' : item.phase, status: item.status });
    this.status.textContent = statusLabel(item);
    this.progress.hidden = !pending;
    this.progress.value = item.progress ?? 0;
    this.cancelButton.hidden = !pending;
    this.playButton.hidden = item.phase !== 'succeeded';
    this.editButton.hidden = item.phase !== 'succeeded' || !this.canRemix.edit;
    this.extendButton.hidden = item.phase !== 'succeeded' || !this.canRemix.extend;
    this.prompt.textContent = item.prompt ?? '';
    this.prompt.hidden = !item.prompt;
    this.timing.textContent = timingText(item);
    this.timing.hidden = !this.timing.textContent;
    this.elapsed.hidden = !pending;
    this.showDetail(detailOf(item));
    if (item.phase === 'expired' && this.playerOpen) this.closePlayer();
    this.tick(Date.now());
    // A button that vanishes under the keyboard (Cancel once canceled) hands focus to its row, not to the page.
    if (focused instanceof HTMLElement && this.el.contains(focused) && focused.hidden) this.el.focus();
  }

  /** Elapsed time of an unfinished task; runs every second without touching the network. */
  tick(now: number): void {
    if (this.item.phase === 'pending') this.elapsed.textContent = `${formatElapsed(now - this.item.createdAt)} elapsed`;
  }

  /** A message under the status: a failure's reason, or what went wrong with an action. */
  showDetail(text: string | undefined, kind: 'error' | 'note' = 'error'): void {
    this.detail.textContent = text ?? '';
    this.detail.hidden = !text;
    this.detail.className = `task-detail ${kind}`;
  }

  /** Shows the poster (an object URL the list owns). */
  setPoster(url: string): void {
    this.poster.replaceChildren(h('img', { src: url, alt: '', width: 160, height: 90, decoding: 'async' }));
    this.el.dataset.poster = 'shown';
  }

  setBusy(button: 'cancel' | 'play', busy: boolean): void {
    (button === 'cancel' ? this.cancelButton : this.playButton).disabled = busy;
  }

  /** Play opens the player; once open, the same button closes it (and stops the download). */
  get playerOpen(): boolean {
    return this.player.childElementCount > 0;
  }

  closePlayer(): void {
    this.player.querySelector('video')?.removeAttribute('src');
    this.player.replaceChildren();
    this.markPlayer();
  }

  markPlayer(): void {
    this.playButton.textContent = this.playerOpen ? 'Hide video' : 'Play';
    this.playButton.setAttribute('aria-expanded', String(this.playerOpen));
  }
}

/** The status says what happened; this line says why, in the server's words for a failure. */
function detailOf(item: TaskItem): string | undefined {
  if (item.phase === 'expired') return 'The video was deleted at the end of its retention period.';
  if (item.phase !== 'failed' || isCanceled(item)) return undefined;
  return item.error?.message ?? 'The server gave no reason.';
}
