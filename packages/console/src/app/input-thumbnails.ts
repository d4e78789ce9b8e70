import type { ModelObject } from '@vidgen/client';
import type { FormValues } from './form-rules.ts';
import { h } from './dom.ts';

/**
 * What a task was made from, as its row shows it: a small picture of each image this tab sent,
 * labelled with its role. Made in the page from the chosen files; an image given by URL is shown by
 * its host, since the console's content policy loads pictures only from its own origin.
 */
export interface InputThumb {
  label: string;
  /** A JPEG data URL of the picture, 72 px high. */
  src?: string;
  /** The URL the image was given as. */
  url?: string;
}

const HEIGHT = 72;

/** The thumbnails of a form's images, in the order the request sends them; an undrawable file keeps its label. */
export async function thumbnailsOf(model: ModelObject, v: FormValues): Promise<InputThumb[]> {
  const images = [...v.imageUrls, ...v.imageFiles];
  const named: Array<[string, string | File]> = [];
  // Family B's images are the first frame, then reference images; family A has one first frame.
  images.forEach((image, i) => {
    named.push([i === 0 ? 'First frame' : `Reference image ${i}`, image]);
  });
  for (const image of [...v.lastFrameUrls, ...v.lastFrameFiles]) named.push(['Last frame', image]);
  const offset = model.family === 'A' ? 0 : Math.max(0, images.length - 1);
  [...v.referenceUrls, ...v.referenceFiles].forEach((image, i) => {
    named.push([`Reference image ${offset + i + 1}`, image]);
  });
  return Promise.all(
    named.map(async ([label, image]) =>
      typeof image === 'string' ? { label, url: image } : { label, src: await drawn(image) },
    ),
  );
}

async function drawn(file: File): Promise<string | undefined> {
  try {
    const bitmap = await createImageBitmap(file);
    const canvas = h('canvas', {
      width: Math.max(1, Math.round((bitmap.width / bitmap.height) * HEIGHT)),
      height: HEIGHT,
    });
    canvas.getContext('2d')?.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    bitmap.close();
    return canvas.toDataURL('image/jpeg', 0.8);
  } catch {
    return undefined;
  }
}

/** The row's list of inputs: each picture with its role as its text, or the host of its URL. */
export function inputList(thumbs: readonly InputThumb[]): HTMLElement {
  return h(
    'ul',
    { class: 'task-inputs', 'aria-label': 'Inputs' },
    ...thumbs.map((t) =>
      h(
        'li',
        { title: t.url ?? t.label },
        t.src
          ? h('img', { src: t.src, alt: t.label, height: HEIGHT / 2, decoding: 'async' })
          : h('span', { class: 'task-input-link' }, t.url ? hostOf(t.url) : '?'),
        h('span', { class: 'task-input-label' }, t.label),
      ),
    ),
  );
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url.slice(0, 24);
  }
}
