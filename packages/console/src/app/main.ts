import { byId, h, replace } from './dom.ts';
import { announce } from './announce.ts';
import { clearSession, storedApiKey } from './session.ts';
import { createClient, signInView } from './sign-in-view.ts';
import { consoleView, type ConsoleView } from './console-view.ts';
import { describeError } from './describe-error.ts';
import { AuthenticationError, type ModelObject, type VidgenClient } from '@vidgen/client';

/**
 * Entry point. Two screens: sign in, and the console. The key comes from this tab's
 * sessionStorage, so a reload stays signed in and a new tab asks again.
 */
let current: ConsoleView | undefined;

function showSignIn(message?: string): void {
  current?.destroy();
  current = undefined;
  replace(byId('session'));
  replace(byId('main'), insecureNotice(), signInView(showConsole, message));
  byId('api-key').focus();
}

function showConsole(client: VidgenClient, models: ModelObject[]): void {
  current?.destroy();
  current = consoleView(client, models, signOut);
  replace(
    byId('session'),
    current.balance,
    h('button', { type: 'button', class: 'secondary', onclick: () => signOut() }, 'Sign out'),
  );
  replace(byId('main'), insecureNotice(), current.el);
  announce('Signed in.');
  document.querySelector<HTMLElement>('#model, #prompt')?.focus();
}

function signOut(message?: string): void {
  clearSession();
  showSignIn(message);
  announce(message ?? 'Signed out.');
}

/**
 * Browsers switch Web Crypto off on plain http from anywhere but localhost, and the SDK needs
 * it for idempotency keys; a key typed into such a page would also cross the network in clear.
 */
function insecureNotice(): HTMLElement | null {
  if (window.isSecureContext && globalThis.crypto?.subtle) return null;
  return h(
    'p',
    { class: 'notice', role: 'note' },
    'This page is not served over HTTPS, so the browser withholds the cryptography the console needs to submit ' +
      'safely, ',
    'and your API key would travel unencrypted. Serve vidgen over HTTPS (for example behind a reverse proxy) or ' +
      'open it on localhost.',
  );
}

async function boot(): Promise<void> {
  const key = storedApiKey();
  if (!key) return showSignIn();
  try {
    const client = createClient(key);
    showConsole(client, (await client.models.list()).data);
  } catch (err) {
    // Only a refused key is forgotten; a server that is down keeps it for the next reload.
    if (err instanceof AuthenticationError) clearSession();
    showSignIn(
      err instanceof AuthenticationError
        ? describeError(err).message
        : `Could not reach vidgen: ${describeError(err).message} Reload to try again.`,
    );
  }
}

void boot();
