/**
 * What the console remembers, all in sessionStorage: it dies with the tab, is never sent
 * anywhere, and "Sign out" wipes it. The task list itself always comes from the server.
 */
const KEY = 'vidgen.console.apiKey';
const PROMPTS = 'vidgen.console.prompts';
/** Prompts are only a label for tasks submitted from this tab; the listing does not carry them. */
const MAX_PROMPTS = 200;

export function storedApiKey(): string | null {
  return read(KEY);
}

export function storeApiKey(apiKey: string): void {
  write(KEY, apiKey);
}

export function clearSession(): void {
  try {
    sessionStorage.removeItem(KEY);
    sessionStorage.removeItem(PROMPTS);
  } catch {
    /* storage disabled: nothing was kept */
  }
}

export function promptOf(taskId: string): string | undefined {
  return prompts()[taskId];
}

export function rememberPrompt(taskId: string, prompt: string): void {
  const entries = Object.entries(prompts()).slice(-(MAX_PROMPTS - 1));
  entries.push([taskId, prompt.slice(0, 300)]);
  write(PROMPTS, JSON.stringify(Object.fromEntries(entries)));
}

function prompts(): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(read(PROMPTS) ?? '{}');
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, string>) : {};
  } catch {
    return {};
  }
}

function read(name: string): string | null {
  try {
    return sessionStorage.getItem(name);
  } catch {
    return null;
  }
}

function write(name: string, value: string): void {
  try {
    sessionStorage.setItem(name, value);
  } catch {
    /* storage full or disabled: the console still works until the tab closes */
  }
}
