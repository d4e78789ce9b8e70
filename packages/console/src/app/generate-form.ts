import { APIError, type ModelObject, type VidgenClient } from '@vidgen/client';
import { h, field, replace, setFieldError } from './dom.ts';
import { MAX_PROMPT_LENGTH, checkForm, describeModel, fieldForParam, type FieldErrors } from './form-rules.ts';
import { modelFields, readValues } from './model-fields.ts';
import { submitGeneration } from './submit-generation.ts';
import { thumbnailsOf } from './input-thumbnails.ts';
import { rememberInputs } from './session.ts';
import { describeError } from './describe-error.ts';
import type { TaskItem } from './task-item.ts';

export interface GenerateFormOptions {
  client: VidgenClient;
  models: ModelObject[];
  onCreated(item: TaskItem, prompt: string): void;
  /** Any failed call goes here first; true means it was handled (e.g. the key was revoked). */
  onError(err: unknown): boolean;
}

/** "New video": the model picker, the fields that model takes, and the Generate button. */
export function generateForm(opts: GenerateFormOptions): HTMLElement {
  const usable = opts.models.filter((m) => m.capabilities.generate);
  if (usable.length === 0) {
    return h(
      'section',
      { class: 'panel', 'aria-labelledby': 'new-title' },
      h('h2', { id: 'new-title' }, 'New video'),
      h(
        'p',
        { class: 'notice' },
        'This API key’s account may not use any generation model (GET /v1/models lists none).',
      ),
    );
  }
  // Text-to-video first: a model that needs no image works with nothing but a prompt.
  const preferred = usable.find((m) => !m.requires_image) ?? usable[0];
  const select = h(
    'select',
    { id: 'model', name: 'model' },
    ...usable.map((m) => h('option', { value: m.id, selected: m === preferred }, m.id)),
  );
  const info = h('p', { class: 'hint', id: 'model-info' });
  const prompt = h('textarea', { id: 'prompt', name: 'prompt', rows: 3, maxlength: MAX_PROMPT_LENGTH, required: true });
  const specific = h('div', { class: 'model-fields' });
  const button = h('button', { type: 'submit', class: 'primary' }, 'Generate');
  const formError = h('p', { class: 'form-error', role: 'alert', id: 'form-error' });
  const form = h(
    'form',
    { id: 'generate', novalidate: true, 'aria-labelledby': 'new-title' },
    h('h2', { id: 'new-title' }, 'New video'),
    field('Model', select),
    info,
    field('Prompt', prompt, 'Subject, action and camera move, e.g. “harbour at dusk, slow zoom in”.'),
    specific,
    button,
    formError,
  );
  const current = () => usable.find((m) => m.id === select.value) ?? preferred;
  const showModel = () => {
    const previousRatio = form.querySelector<HTMLSelectElement>('#aspect-ratio')?.value;
    info.textContent = describeModel(current());
    replace(specific, ...modelFields(current(), previousRatio));
  };
  select.addEventListener('change', showModel);
  showModel();
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void send(form, current(), button, formError, opts);
  });
  return h('section', { class: 'panel' }, form);
}

async function send(
  form: HTMLFormElement,
  model: ModelObject,
  button: HTMLButtonElement,
  formError: HTMLElement,
  opts: GenerateFormOptions,
) {
  if (button.disabled) return;
  const values = readValues(model, form);
  showErrors(form, formError, checkForm(model, values));
  if (formError.textContent) return;
  button.disabled = true;
  const uploads = values.imageFiles.length + values.lastFrameFiles.length + values.referenceFiles.length;
  button.textContent = model.family === 'A' && uploads ? 'Uploading…' : 'Submitting…';
  try {
    const thumbs = await thumbnailsOf(model, values);
    const item = await submitGeneration(opts.client, model, values);
    rememberInputs(item.id, thumbs);
    opts.onCreated(item, values.prompt.trim());
    for (const input of form.querySelectorAll<HTMLInputElement>('input[type=file]')) input.value = '';
  } catch (err) {
    if (opts.onError(err)) return;
    const { message, param, requestId } = describeError(err);
    const fieldId = fieldForParam(model.family, param, values);
    const refused = err instanceof APIError && err.status !== undefined;
    const summary =
      `${refused ? 'The server refused the request' : 'Could not submit'}: ${message}` +
      (requestId ? ` (request id ${requestId})` : '');
    showErrors(form, formError, fieldId ? { [fieldId]: message } : {}, summary);
  } finally {
    button.disabled = false;
    button.textContent = 'Generate';
  }
}

/** Marks every field in `errors` and sums them up above the button; focuses the first one. */
function showErrors(form: HTMLFormElement, formError: HTMLElement, errors: FieldErrors, summary?: string) {
  for (const control of form.querySelectorAll<HTMLElement>('input, select, textarea')) {
    setFieldError(control, errors[control.id]);
    if (errors[control.id]) control.closest('details')?.setAttribute('open', '');
  }
  const ids = Object.keys(errors);
  formError.textContent =
    summary ??
    (ids.length ? `Please fix ${ids.length === 1 ? 'the marked field' : `the ${ids.length} marked fields`}.` : '');
  const first =
    ids.map((id) => form.querySelector<HTMLElement>(`#${id}`)).find(Boolean) ?? (summary ? formError : null);
  if (first === formError) formError.setAttribute('tabindex', '-1');
  first?.focus();
}
