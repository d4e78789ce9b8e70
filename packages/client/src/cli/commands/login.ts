import { normalizeBaseURL } from '../../vidgen-client.ts';
import { accountOf } from '../../journal/journal-scope.ts';
import type { CliContext } from '../cli-context.ts';
import { EXIT, UsageError } from '../exit-codes.ts';
import { profilePath, removeProfile, writeProfile } from '../profile.ts';

/**
 * `vidgen login`: checks the key against the server, then saves both as the default profile.
 * Like `gh auth login --with-token`, the key may come on standard input, so it stays out of the
 * shell history; typed at a terminal, it is not echoed.
 */
export async function loginCommand(ctx: CliContext): Promise<number> {
  const apiKey = ctx.flags['api-key'] || ctx.env.VIDGEN_API_KEY || (await readKey(ctx));
  if (!apiKey)
    throw new UsageError('no API key: pass --api-key, set VIDGEN_API_KEY, or pipe the key to `vidgen login`.');
  const baseURL = normalizeBaseURL(ctx.config.baseURL);
  const client = ctx.clientFor({ baseURL, apiKey });
  const { data } = await client.models.list({ signal: ctx.signal });
  const path = profilePath(ctx.env);
  await writeProfile(path, { baseURL, apiKey });
  const account = await accountOf(apiKey);
  ctx.result(
    { base_url: baseURL, account, models: data.length, profile: path },
    `Logged in to ${baseURL} (${account}, ${data.length} models). Saved to ${path}.`,
  );
  return EXIT.ok;
}

export async function logoutCommand(ctx: CliContext): Promise<number> {
  const path = profilePath(ctx.env);
  const removed = await removeProfile(path);
  ctx.result({ removed, profile: path }, removed ? `Removed ${path}.` : `No profile at ${path}.`);
  return EXIT.ok;
}

async function readKey(ctx: CliContext): Promise<string | undefined> {
  const stdin = ctx.io.stdin;
  if (!stdin) return undefined;
  const setRawMode = stdin.setRawMode?.bind(stdin);
  if (stdin.isTTY && setRawMode) return readKeyWithoutEcho(ctx, stdin, setRawMode);
  let text = '';
  for await (const chunk of stdin) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.split('\n')[0].trim() || undefined;
}

/**
 * At a terminal the key is typed without echo, as `npm login` and `gh auth login` read secrets: raw
 * mode turns the terminal's echo off, so the key never shows on screen or in a recording of it.
 * Enter ends it, Backspace erases a character, Ctrl-C or Ctrl-D gives up.
 */
async function readKeyWithoutEcho(
  ctx: CliContext,
  stdin: NonNullable<CliContext['io']['stdin']>,
  setRawMode: (raw: boolean) => unknown,
): Promise<string | undefined> {
  // Echo off before the prompt shows: what is typed once the prompt appears is never echoed.
  setRawMode(true);
  ctx.io.stderr.write('API key (not shown as you type): ');
  let key = '';
  try {
    for await (const chunk of stdin) {
      for (const char of String(chunk)) {
        if (char === '\r' || char === '\n') return key.trim() || undefined;
        if (char === '\u0003' || char === '\u0004') throw new UsageError('login canceled: no key was saved.');
        if (char === '\u007f' || char === '\b') key = key.slice(0, -1);
        else if (char >= ' ') key += char;
      }
    }
    return key.trim() || undefined;
  } finally {
    // Leaving the loop may have closed stdin already; the terminal's mode is restored then too.
    try {
      setRawMode(false);
      stdin.pause?.();
    } catch {}
    ctx.io.stderr.write('\n');
  }
}
