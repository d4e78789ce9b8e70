import type { ModelObject } from '@vidgen/client';
import { h, field } from './dom.ts';
import { imageGroup, lastFrameFields, referenceImageFields } from './input-fields.ts';
import {
  ACCEPTED_IMAGE_TYPES,
  MAX_REFERENCE_IMAGES,
  defaultRatio,
  durationRange,
  type FormValues,
} from './form-rules.ts';

const ACCEPT = ACCEPTED_IMAGE_TYPES.join(',');

/**
 * The fields that depend on the model: family A's first frame and duration, family B's images, and
 * the last frame and reference images where the model's `inputs` take them.
 */
export function modelFields(model: ModelObject, previousRatio?: string): HTMLElement[] {
  const ratio = ratioField(model, previousRatio);
  const sound = soundField(model);
  const inputs = [lastFrameFields(model), referenceImageFields(model)].filter((f) => f !== '') as HTMLElement[];
  if (model.family === 'A')
    return [
      firstFrameFields(model),
      ...inputs,
      h('div', { class: 'field-row' }, durationField(model), ratio, seedField(), sound),
    ];
  return [referenceFields(model), ...inputs, h('div', { class: 'field-row' }, ratio, seedField(), sound)];
}

/** A "Sound" box where the model lets the request choose, ticked as its default; nothing otherwise. */
function soundField(model: ModelObject): HTMLElement | string {
  if (model.sound?.mode !== 'optional') return '';
  const box = h('input', { id: 'sound', name: 'sound', type: 'checkbox', checked: model.sound.default === true });
  return h('div', { class: 'field check' }, h('label', { for: 'sound' }, box, 'Sound'));
}

/** Reads the current controls; ids are those the fields above create. */
export function readValues(model: ModelObject, form: HTMLFormElement): FormValues {
  const value = (id: string) =>
    form.querySelector<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>(`#${id}`)?.value ?? '';
  const files = (id: string) => [...(form.querySelector<HTMLInputElement>(`#${id}`)?.files ?? [])];
  const seed = value('seed').trim();
  const box = form.querySelector<HTMLInputElement>('#sound');
  const lastUrl = value('last-frame-url').trim();
  const base = {
    prompt: value('prompt'),
    ratio: value('aspect-ratio'),
    seed: seed === '' ? undefined : Number(seed),
    ...(box ? { sound: box.checked } : {}),
    lastFrameUrls: lastUrl ? [lastUrl] : [],
    lastFrameFiles: files('last-frame-file'),
    referenceUrls: value('reference-urls').split(/\s+/).filter(Boolean),
    referenceFiles: files('reference-files'),
  };
  if (model.family === 'A') {
    const url = value('first-frame-url').trim();
    const raw = value('duration').trim();
    return {
      ...base,
      duration: raw === '' ? undefined : Number(raw),
      imageUrls: url ? [url] : [],
      imageFiles: files('first-frame-file'),
    };
  }
  const urls = value('image-urls').split(/\s+/).filter(Boolean);
  return { ...base, imageUrls: urls, imageFiles: files('image-files') };
}

function firstFrameFields(model: ModelObject): HTMLElement {
  const url = h('input', {
    id: 'first-frame-url',
    name: 'first-frame-url',
    type: 'url',
    inputmode: 'url',
    autocomplete: 'off',
    spellcheck: 'false',
  });
  const file = h('input', { id: 'first-frame-file', name: 'first-frame-file', type: 'file', accept: ACCEPT });
  const need = model.requires_image ? 'Required: ' : 'Optional: ';
  return imageGroup(
    model.requires_image,
    'First frame',
    `${need}an image URL the server can reach, or a PNG/JPEG file to upload — one of the two.`,
    field('First frame URL', url),
    field('First frame file', file),
  );
}

function durationField(model: ModelObject): HTMLElement {
  const { min, max } = durationRange(model);
  const input = h('input', {
    id: 'duration',
    name: 'duration',
    type: 'number',
    inputmode: 'numeric',
    min,
    max,
    step: 1,
    value: Math.min(Math.max(5, min), max),
    required: true,
  });
  return field('Duration', input, `Seconds, ${min} to ${max}.`);
}

function referenceFields(model: ModelObject): HTMLElement {
  const urls = h('textarea', {
    id: 'image-urls',
    name: 'image-urls',
    rows: 2,
    autocomplete: 'off',
    spellcheck: 'false',
  });
  const files = h('input', { id: 'image-files', name: 'image-files', type: 'file', accept: ACCEPT, multiple: true });
  const need = model.requires_image
    ? 'At least one image is required'
    : 'None for text-to-video; one or more for image-to-video';
  return imageGroup(
    model.requires_image,
    'Reference images',
    `${need} (at most ${MAX_REFERENCE_IMAGES}, URLs and files together).`,
    field('Reference image URLs', urls, 'One http(s) URL per line.'),
    field('Reference image files', files, 'PNG or JPEG; sent inline as data URIs.'),
  );
}

/** Optional: the same seed and inputs render the same video. */
function seedField(): HTMLElement {
  return field(
    'Seed',
    h('input', { id: 'seed', name: 'seed', type: 'number', inputmode: 'numeric', min: 0, max: 4294967295, step: 1 }),
    'Optional.',
  );
}

function ratioField(model: ModelObject, previous?: string): HTMLElement {
  const chosen = previous && model.aspect_ratios.includes(previous) ? previous : defaultRatio(model);
  const options = model.aspect_ratios.map((r) => h('option', { value: r, selected: r === chosen }, r));
  return field('Aspect ratio', h('select', { id: 'aspect-ratio', name: 'aspect-ratio' }, ...options));
}
