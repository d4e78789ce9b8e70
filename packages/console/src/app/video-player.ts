import type { FamilyATask, VidgenClient } from '@vidgen/client';
import { h } from './dom.ts';
import type { TaskItem } from './task-item.ts';

/**
 * Plays a finished task inline. A <video> cannot send the Bearer header, so it gets a signed
 * link: the family A poll answers any task of the account (family B's too) with a fresh one.
 * The content endpoint serves Range requests, so seeking fetches only what it needs.
 */
export async function showPlayer(client: VidgenClient, item: TaskItem, container: HTMLElement): Promise<FamilyATask> {
  container.replaceChildren(h('p', { class: 'hint' }, 'Getting a fresh link…'));
  const task = await client.videos.retrieve(item.id);
  const url = task.video?.url;
  if (!url) {
    container.replaceChildren();
    return task;
  }
  const video = h('video', {
    controls: true,
    playsinline: true,
    preload: 'metadata',
    src: url,
    'aria-label': `Video from ${item.model}`,
  });
  const download = h('a', { class: 'button-link', href: url, download: `${item.id}.mp4` }, 'Download MP4');
  const failure = h('p', { class: 'task-detail error', hidden: true });
  video.addEventListener('error', () => {
    failure.textContent =
      'The video could not be loaded (its link may have expired). Press Play again for a fresh link.';
    failure.hidden = false;
  });
  container.replaceChildren(
    video,
    failure,
    h(
      'p',
      { class: 'player-links' },
      download,
      h('span', { class: 'hint' }, ' A signed link: it works without the key until it expires.'),
    ),
  );
  // Pressing Play is the user's gesture; a browser that still refuses leaves the controls to them.
  video.play().catch(() => undefined);
  return task;
}
