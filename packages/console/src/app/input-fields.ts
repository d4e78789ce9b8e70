import type { ModelObject } from '@vidgen/client';
import { h, field } from './dom.ts';
import { ACCEPTED_IMAGE_TYPES } from './form-rules.ts';

const ACCEPT = ACCEPTED_IMAGE_TYPES.join(',');

/**
 * A required image is a fieldset in plain view; an optional one folds away, so a text-to-video
 * form fits the first screen (the form opens it when a field inside has an error).
 */
export function imageGroup(required: boolean, title: string, hint: string, ...fields: HTMLElement[]): HTMLElement {
  if (required)
    return h('fieldset', { class: 'group' }, h('legend', {}, title), h('p', { class: 'hint' }, hint), ...fields);
  return h(
    'details',
    { class: 'group' },
    h('summary', {}, `${title} (optional)`),
    h('p', { class: 'hint' }, hint),
    ...fields,
  );
}

const urlInput = (id: string) =>
  h('input', { id, name: id, type: 'url', inputmode: 'url', autocomplete: 'off', spellcheck: 'false' });

/** The image the video ends on, for models whose `inputs.last_frame` is true (docs/inputs.md). */
export function lastFrameFields(model: ModelObject): HTMLElement | string {
  if (!model.inputs?.last_frame) return '';
  const file = h('input', { id: 'last-frame-file', name: 'last-frame-file', type: 'file', accept: ACCEPT });
  const how = model.family === 'A' ? 'uploaded' : 'sent inline';
  return imageGroup(
    false,
    'Last frame',
    `The video ends exactly on it: an image URL the server can reach, or a PNG/JPEG file (${how}) — one of the two.`,
    field('Last frame URL', urlInput('last-frame-url')),
    field('Last frame file', file),
  );
}

/**
 * Family A's reference images (`reference_images`), for models that take some: they shape the scene
 * (its palette, framed pictures); family B's are the images after the first in its image fields.
 */
export function referenceImageFields(model: ModelObject): HTMLElement | string {
  const most = model.inputs?.reference_images ?? 0;
  if (model.family !== 'A' || most === 0) return '';
  const urls = h('textarea', { id: 'reference-urls', name: 'reference-urls', rows: 2, autocomplete: 'off' });
  urls.setAttribute('spellcheck', 'false');
  const files = h('input', {
    id: 'reference-files',
    name: 'reference-files',
    type: 'file',
    accept: ACCEPT,
    multiple: true,
  });
  return imageGroup(
    false,
    'Reference images',
    `Up to ${most}, URLs and files together: they give the scene their colours and appear in it.`,
    field('Reference image URLs', urls, 'One http(s) URL per line.'),
    field('Reference image files', files, 'PNG or JPEG; uploaded.'),
  );
}
