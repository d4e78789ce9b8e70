import { VidgenClient, type ModelObject } from '@vidgen/client';
import { h, field, setFieldError } from './dom.ts';
import { describeError } from './describe-error.ts';
import { storeApiKey } from './session.ts';

/** The API lives beside the page (the same origin, and the same path prefix behind a proxy). */
export function createClient(apiKey: string): VidgenClient {
  return new VidgenClient({ baseURL: new URL('.', document.baseURI).href, apiKey });
}

/**
 * The key is checked by listing the models (which the console needs anyway) and only then
 * kept, in this tab's sessionStorage.
 */
export function signInView(
  onSignedIn: (client: VidgenClient, models: ModelObject[]) => void,
  message?: string,
): HTMLElement {
  const input = h('input', {
    id: 'api-key',
    name: 'api-key',
    type: 'password',
    autocomplete: 'off',
    spellcheck: 'false',
    required: true,
  });
  const button = h('button', { type: 'submit', class: 'primary' }, 'Sign in');
  const error = h('p', { class: 'form-error', role: 'alert' }, message ?? '');
  const form = h(
    'form',
    { class: 'panel sign-in', novalidate: true, 'aria-labelledby': 'sign-in-title' },
    h('h2', { id: 'sign-in-title' }, 'Sign in'),
    h(
      'p',
      {},
      'Enter a vidgen API key. The console keeps it in this browser tab only and sends it nowhere but this server.',
    ),
    field('API key', input),
    h(
      'p',
      { class: 'hint' },
      'No key? Ask your vidgen operator, or on the server run ',
      h('code', {}, 'npx vidgen-server keys create --account <name>'),
      '.',
    ),
    button,
    error,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const key = input.value.trim();
    setFieldError(input, key ? undefined : 'Enter your API key.');
    error.textContent = '';
    if (!key) return input.focus();
    button.disabled = true;
    try {
      const client = createClient(key);
      const models = await client.models.list();
      storeApiKey(key);
      onSignedIn(client, models.data);
    } catch (err) {
      error.textContent = describeError(err).message;
      input.focus();
    } finally {
      button.disabled = false;
    }
  });
  return form;
}
