import { viewOf, type Family, type ModelObject, type VidgenClient } from '@vidgen/client';
import { remixForm } from './remix-form.ts';
import { h } from './dom.ts';
import { announce } from './announce.ts';
import { describeError } from './describe-error.ts';
import { inputsOf, promptOf, rememberPrompt } from './session.ts';
import { statusLabel, toTaskItem, type TaskItem, type WireTask } from './task-item.ts';
import { TaskRow } from './task-row.ts';
import { TaskWatcher } from './task-watcher.ts';
import { showPlayer } from './video-player.ts';

/** Newest tasks of each family shown after a (re)load; older ones stay reachable through the API. */
const PAGE_SIZE = 50;

/**
 * "Your videos": both families' listings merged, newest first. The server is the source of
 * truth, so a reload shows the same list; each row remembers its family for polls and cancels.
 */
export class TaskList {
  readonly el: HTMLElement;
  private readonly list = h('ul', { class: 'tasks', 'aria-labelledby': 'tasks-title' });
  private readonly empty = h('p', { class: 'hint', hidden: true }, 'No videos yet. Submit one with the form.');
  private readonly status = h('p', { class: 'hint', role: 'status' });
  private readonly rows = new Map<string, TaskRow>();
  private readonly watcher: TaskWatcher;
  private readonly ticker: ReturnType<typeof setInterval>;

  private readonly posters = new Map<string, string>();
  private readonly remixModels: { edit?: ModelObject; extend?: ModelObject };

  /** `changed` runs when a task is submitted or ends: what the account's balance follows. */
  constructor(
    private readonly client: VidgenClient,
    private readonly onError: (err: unknown) => boolean,
    models: ModelObject[] = [],
    private readonly changed: () => void = () => undefined,
  ) {
    // Edit and extend are family A endpoints; the first model the key may use for each is offered.
    const family = models.filter((m) => m.family === 'A');
    this.remixModels = {
      edit: family.find((m) => m.capabilities.edit),
      extend: family.find((m) => m.capabilities.extend),
    };
    this.watcher = new TaskWatcher(client, {
      update: (family, task) => this.apply(family, task),
      gone: (id) => this.remove(id),
      error: (id, err) => this.pollFailed(id, err),
    });
    const refresh = h('button', { type: 'button', class: 'secondary', onclick: () => void this.load() }, 'Refresh');
    this.el = h(
      'section',
      { class: 'panel tasks-panel' },
      h('div', { class: 'panel-head' }, h('h2', { id: 'tasks-title' }, 'Your videos'), refresh),
      this.status,
      this.empty,
      this.list,
    );
    this.ticker = setInterval(() => {
      for (const row of this.rows.values()) row.tick(Date.now());
    }, 1000);
  }

  async load(): Promise<void> {
    this.status.textContent = 'Loading your videos…';
    try {
      const [a, b] = await Promise.all([
        this.client.videos.list({ limit: PAGE_SIZE }),
        this.client.videoGenerations.list({ limit: PAGE_SIZE }),
      ]);
      for (const task of a.data) this.apply('A', task);
      for (const task of b.data) this.apply('B', task);
      this.status.textContent = '';
      this.empty.hidden = this.rows.size > 0;
    } catch (err) {
      if (!this.onError(err)) this.status.textContent = `Could not load your videos: ${describeError(err).message}`;
    }
  }

  /** A task this tab just submitted. */
  add(item: TaskItem, prompt: string): void {
    rememberPrompt(item.id, prompt);
    this.upsert(item);
    this.changed();
    announce(`Submitted to ${item.model}: ${statusLabel(item)}.`);
  }

  destroy(): void {
    clearInterval(this.ticker);
    this.watcher.stopAll();
    for (const url of this.posters.values()) URL.revokeObjectURL(url);
  }

  private apply(family: Family, task: WireTask): void {
    const id = family === 'A' ? (task as { request_id: string }).request_id : (task as { task_id: string }).task_id;
    this.upsert(toTaskItem(family, task, this.rows.get(id)?.current));
  }

  private upsert(item: TaskItem): void {
    const row = this.rows.get(item.id);
    if (row) {
      const before = row.current.phase;
      row.update(item);
      if (before === 'pending' && item.phase !== 'pending') {
        announce(`${item.model} video: ${statusLabel(item)}.`);
        this.changed();
        void this.loadTimes(item);
      }
    } else {
      this.insert(
        new TaskRow(
          item,
          promptOf(item.id),
          {
            cancel: (i, r) => void this.cancel(i, r),
            play: (i, r) => void this.play(i, r),
            edit: this.remixModels.edit ? (i, r) => this.openRemix('edit', i, r) : undefined,
            extend: this.remixModels.extend ? (i, r) => this.openRemix('extend', i, r) : undefined,
          },
          inputsOf(item.id),
        ),
      );
    }
    if (item.phase === 'succeeded') void this.loadPoster(item.id);
    this.empty.hidden = true;
    if (item.phase === 'pending') this.watcher.watch(item);
  }

  /**
   * A task that ended while this tab watched it: its listing entry brings the server's created, started and finished
   * times (a poll has none), so its row reads as it will after a reload. Found by the key it was created with; a task
   * made without one is looked for among those created since the second before it.
   */
  private async loadTimes(item: TaskItem): Promise<void> {
    const params = item.idempotencyKey
      ? { idempotency_key: item.idempotencyKey, limit: 1 }
      : { created_after: Math.floor(item.createdAt / 1000) - 1, limit: 100 };
    try {
      const page =
        item.family === 'A' ? await this.client.videos.list(params) : await this.client.videoGenerations.list(params);
      const entry = (page.data as WireTask[]).find((t) => viewOf(item.family, t).id === item.id);
      if (entry) this.apply(item.family, entry);
    } catch {
      // The row keeps what it shows; a reload lists the times.
    }
  }

  /** Keeps newest first whatever order rows arrive in (two listings, fresh submits). */
  private insert(row: TaskRow): void {
    this.rows.set(row.current.id, row);
    const next = [...this.list.children].find(
      (el) => Number((el as HTMLElement).dataset.created) < row.current.createdAt,
    );
    this.list.insertBefore(row.el, next ?? null);
  }

  /** The poster, fetched once through the SDK (an <img> cannot send the key) and shown as an object URL. */
  private async loadPoster(id: string): Promise<void> {
    if (this.posters.has(id)) return;
    this.posters.set(id, '');
    try {
      const image = await this.client.content.image(id, 'thumbnail');
      const url = URL.createObjectURL(new Blob([image.bytes as Uint8Array<ArrayBuffer>], { type: image.contentType }));
      this.posters.set(id, url);
      this.rows.get(id)?.setPoster(url);
    } catch {
      // A task made before posters existed has none; the row simply shows no picture.
    }
  }

  private openRemix(kind: 'edit' | 'extend', item: TaskItem, row: TaskRow): void {
    const model = this.remixModels[kind];
    if (!model) return;
    const close = () => row.remix.replaceChildren();
    row.remix.replaceChildren(
      remixForm(kind, item, model, {
        client: this.client,
        onError: this.onError,
        onCreated: (created, prompt) => this.add(created, prompt),
        close,
      }),
    );
  }

  private remove(id: string): void {
    const poster = this.posters.get(id);
    if (poster) URL.revokeObjectURL(poster);
    this.posters.delete(id);
    this.rows.get(id)?.el.remove();
    this.rows.delete(id);
    this.empty.hidden = this.rows.size > 0;
  }

  private async cancel(item: TaskItem, row: TaskRow): Promise<void> {
    row.setBusy('cancel', true);
    try {
      const data =
        item.family === 'A'
          ? await this.client.videos.cancel(item.id)
          : await this.client.videoGenerations.cancel(item.id);
      this.apply(item.family, data as WireTask);
    } catch (err) {
      if (!this.onError(err)) row.showDetail(`Could not cancel: ${describeError(err).message}`);
    } finally {
      row.setBusy('cancel', false);
    }
  }

  private async play(item: TaskItem, row: TaskRow): Promise<void> {
    if (row.playerOpen) return row.closePlayer();
    row.setBusy('play', true);
    try {
      const task = await showPlayer(this.client, item, row.player);
      // Finished tasks are not polled, so Play is where a result that expired since the listing shows up.
      if (task.status === 'expired') this.upsert({ ...row.current, phase: 'expired' });
      else if (!task.video) row.showDetail(`No video to play: the task is '${task.status}'.`);
    } catch (err) {
      row.player.replaceChildren();
      if (!this.onError(err)) row.showDetail(`Could not play: ${describeError(err).message}`);
    } finally {
      row.setBusy('play', false);
      row.markPlayer();
    }
  }

  private pollFailed(id: string, err: unknown): boolean {
    if (this.onError(err)) return true;
    this.rows
      .get(id)
      ?.showDetail(`Could not check this task: ${describeError(err).message} Trying again shortly.`, 'note');
    return false;
  }
}
