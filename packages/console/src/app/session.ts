/**
 * What the console remembers, all in sessionStorage: it dies with the tab, is never sent
 * anywhere, and "Sign out" wipes it. The task list itself always comes from the server.
 */
import type { InputThumb } from './input-thumbnails.ts';

const KEY = 'vidgen.console.apiKey';
const PROMPTS = 'vidgen.console.prompts';
const INPUTS = 'vidgen.console.inputs';
/** Thumbnails take a few kB each: the inputs of the latest tasks only, well within the tab's storage. */
const MAX_INPUTS = 30;
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
    sessionStorage.removeItem(INPUTS);
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

/** The inputs this tab sent with a task, as thumbnails (input-thumbnails.ts); the server keeps none after the task. */
export function inputsOf(taskId: string): InputThumb[] | undefined {
  return stored<InputThumb[]>(INPUTS)[taskId];
}

export function rememberInputs(taskId: string, thumbs: InputThumb[]): void {
  if (thumbs.length === 0) return;
  const entries = Object.entries(stored<InputThumb[]>(INPUTS)).slice(-(MAX_INPUTS - 1));
  entries.push([taskId, thumbs]);
  write(INPUTS, JSON.stringify(Object.fromEntries(entries)));
}

function prompts(): Record<string, string> {
  return stored<string>(PROMPTS);
}

function stored<T>(name: string): Record<string, T> {
  try {
    const parsed: unknown = JSON.parse(read(name) ?? '{}');
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, T>) : {};
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
