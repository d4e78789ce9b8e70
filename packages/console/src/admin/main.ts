import { AuthenticationError } from '@vidgen/client';
import { byId, field, h, replace, setFieldError } from '../app/dom.ts';
import { announce } from '../app/announce.ts';
import { describeError } from '../app/describe-error.ts';
import { AdminApi, forgetToken, storedToken, storeToken } from './admin-api.ts';
import { autoRefresh, input, type View } from './ui.ts';
import { overviewView } from './views/overview-view.ts';
import { accountsView } from './views/accounts-view.ts';
import { accountPage } from './views/account-page.ts';
import { tasksView } from './views/tasks-view.ts';
import { taskPage } from './views/task-page.ts';
import { usageView } from './views/usage-view.ts';
import { channelsView } from './views/channels-view.ts';
import { webhooksView } from './views/webhooks-view.ts';

/**
 * The operator's console: sign in with the admin token (kept in this tab's sessionStorage only),
 * then six views by the URL's hash. Each view refreshes itself every 5 s while the page is visible.
 * Everything shown is set as text (app/dom.ts), so no name, prompt or URL can become markup.
 */
const NAV = ['Overview', 'Accounts', 'Tasks', 'Usage', 'Channels', 'Webhooks'] as const;
let stop: (() => void) | undefined;

function route(api: AdminApi): View {
  const [, name = 'overview', id] = location.hash.split('/').map((p) => decodeURIComponent(p));
  if (name === 'accounts' && id) return accountPage(api, id);
  if (name === 'tasks' && id) return taskPage(api, id);
  const views: Record<string, (a: AdminApi) => View> = {
    accounts: accountsView,
    tasks: tasksView,
    usage: usageView,
    channels: channelsView,
    webhooks: webhooksView,
  };
  return (views[name] ?? overviewView)(api);
}

async function show(api: AdminApi): Promise<void> {
  stop?.();
  const current = location.hash.split('/')[1] || 'overview';
  replace(
    byId('nav'),
    h(
      'ul',
      {},
      ...NAV.map((n) =>
        h(
          'li',
          {},
          h('a', { href: `#/${n.toLowerCase()}`, 'aria-current': current === n.toLowerCase() ? 'page' : undefined }, n),
        ),
      ),
    ),
  );
  const view = route(api);
  const error = h('p', { class: 'form-error', role: 'alert' });
  replace(byId('main'), error, view.el);
  const refresh = async () => {
    try {
      await view.refresh();
      error.textContent = '';
    } catch (err) {
      if (err instanceof AuthenticationError) return signOut('The admin token was refused. Sign in again.');
      error.textContent = describeError(err).message;
    }
  };
  await refresh();
  stop = autoRefresh(refresh);
}

function signedIn(api: AdminApi): void {
  replace(byId('session'), h('button', { type: 'button', class: 'secondary', onclick: () => signOut() }, 'Sign out'));
  window.onhashchange = () => void show(api);
  void show(api);
}

function signOut(message?: string): void {
  stop?.();
  forgetToken();
  window.onhashchange = null;
  replace(byId('nav'));
  replace(byId('session'));
  signIn(message);
  announce(message ?? 'Signed out.');
}

function signIn(message?: string): void {
  const token = input('admin-token', { type: 'password', spellcheck: 'false', required: true });
  const error = h('p', { class: 'form-error', role: 'alert' }, message ?? '');
  const form = h(
    'form',
    { class: 'panel sign-in', novalidate: true, 'aria-labelledby': 'sign-in-title' },
    h('h1', { id: 'sign-in-title' }, 'Operator sign-in'),
    h('p', {}, 'The token is kept in this browser tab only and sent nowhere but this server.'),
    field('Admin token', token),
    h('button', { type: 'submit', class: 'primary' }, 'Sign in'),
    error,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    setFieldError(token, token.value ? undefined : 'Enter the admin token.');
    if (!token.value) return token.focus();
    const api = new AdminApi(token.value);
    try {
      await api.get('/admin/v1/overview');
      storeToken(token.value);
      signedIn(api);
      announce('Signed in.');
    } catch (err) {
      error.textContent =
        err instanceof AuthenticationError ? 'That admin token is wrong.' : describeError(err).message;
    }
  });
  replace(byId('main'), form);
  token.focus();
}

const kept = storedToken();
if (kept) signedIn(new AdminApi(kept));
else signIn();
