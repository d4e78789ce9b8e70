import type { FamilyATask, VidgenClient } from '@vidgen/client';
import { h } from './dom.ts';
import type { TaskItem } from './task-item.ts';

/**
 * Plays a finished task inline. A <video> cannot send the Bearer header, so it gets a signed
 * link: the family A poll answers any task of the account (family B's too) with a fresh one.
 * The content endpoint serves Range requests, so seeking fetches only what it needs.
 * A video with sound starts muted (browsers refuse to autoplay sound, and a page that suddenly
 * speaks is rude), with a large Sound on / Sound off button beside it.
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
  video.muted = true;
  video.defaultMuted = true;
  const sound = task.video?.has_audio ? soundToggle(video) : null;
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
      sound ?? '',
      download,
      h('span', { class: 'hint' }, ' A signed link: it works without the key until it expires.'),
    ),
  );
  // Pressing Play is the user's gesture; a browser that still refuses leaves the controls to them.
  video.play().catch(() => undefined);
  return task;
}

/** The unmute control: one obvious button whose words say what it does now, kept in step with the player's own. */
function soundToggle(video: HTMLVideoElement): HTMLButtonElement {
  const button = h('button', { type: 'button', class: 'sound-toggle', 'aria-pressed': 'false' });
  const show = () => {
    button.textContent = video.muted ? '🔇 Sound off — turn on' : '🔊 Sound on — mute';
    button.setAttribute('aria-pressed', String(!video.muted));
  };
  button.addEventListener('click', () => {
    video.muted = !video.muted;
    if (!video.muted && video.volume === 0) video.volume = 1;
    if (video.paused) video.play().catch(() => undefined);
  });
  video.addEventListener('volumechange', show);
  show();
  return button;
}
