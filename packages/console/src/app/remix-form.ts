import type { ModelObject, VidgenClient } from '@vidgen/client';
import { h, field, setFieldError } from './dom.ts';
import { describeError } from './describe-error.ts';
import { MAX_PROMPT_LENGTH, durationRange } from './form-rules.ts';
import { toTaskItem, type TaskItem } from './task-item.ts';

export interface RemixOptions {
  client: VidgenClient;
  onCreated(item: TaskItem, prompt: string): void;
  onError(err: unknown): boolean;
  close(): void;
}

/**
 * Edit (re-render with a new prompt) or extend (add seconds) a finished video, inline in its row.
 * The source is the task itself (`video.request_id`, which family B task ids are too).
 */
export function remixForm(
  kind: 'edit' | 'extend',
  source: TaskItem,
  model: ModelObject,
  opts: RemixOptions,
): HTMLFormElement {
  const id = (name: string) => `${kind}-${name}-${source.id}`;
  const prompt = h('textarea', { id: id('prompt'), rows: 2, maxlength: MAX_PROMPT_LENGTH, required: true });
  const { min, max } = durationRange(model);
  const seconds = h('input', {
    id: id('seconds'),
    type: 'number',
    inputmode: 'numeric',
    min,
    max: Math.min(max, 10),
    step: 1,
    value: Math.min(2, max),
  });
  const send = h('button', { type: 'submit', class: 'primary' }, kind === 'edit' ? 'Submit edit' : 'Submit extension');
  const cancel = h('button', { type: 'button', class: 'secondary', onclick: () => opts.close() }, 'Close');
  const error = h('p', { class: 'form-error', role: 'alert' });
  const form = h(
    'form',
    {
      class: 'remix',
      novalidate: true,
      'aria-label': `${kind === 'edit' ? 'Edit' : 'Extend'} this video with ${model.id}`,
    },
    field(kind === 'edit' ? 'New prompt' : 'What happens next', prompt, `With ${model.id}.`),
    kind === 'extend' ? field('Seconds to add', seconds) : null,
    h('div', { class: 'task-actions' }, send, cancel),
    error,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void submit();
  });
  async function submit() {
    const text = prompt.value.trim();
    setFieldError(prompt, text ? undefined : 'Say what the new video should show.');
    if (!text || send.disabled) return prompt.focus();
    send.disabled = true;
    error.textContent = '';
    try {
      const video = { request_id: source.id };
      const body = { model: model.id, prompt: text, video };
      // Chosen here so the row can find the task's listing entry (and its times) once it ends.
      const idempotencyKey = crypto.randomUUID();
      const { request_id } =
        kind === 'edit'
          ? await opts.client.videos.edits.create(body, { idempotencyKey })
          : await opts.client.videos.extensions.create(
              { ...body, duration: Number(seconds.value) || 1 },
              { idempotencyKey },
            );
      const pending = { request_id, status: 'pending' as const, model: model.id, progress: 0 };
      opts.onCreated(toTaskItem('A', { ...pending, idempotency_key: idempotencyKey }), text);
      opts.close();
    } catch (err) {
      if (!opts.onError(err)) error.textContent = `The server refused the request: ${describeError(err).message}`;
    } finally {
      send.disabled = false;
    }
  }
  queueMicrotask(() => prompt.focus());
  return form;
}
