import type { JournalEntry } from './task-journal.ts';

/**
 * Which server and account a journal entry belongs to. One journal directory serves every
 * server and key a user has, so `resume` must only chase an entry with the server and key that
 * created it: elsewhere its task id means nothing (a 404, or worse, another account's lookup).
 */
export interface JournalScope {
  /** The normalised base URL, e.g. `https://video.example.com`. */
  server: string;
  /** `key:<first 16 hex of sha256(api key)>`: tells keys apart without storing one. */
  account: string;
}

/** The key is never written down; 64 bits of its hash are plenty to tell one user's keys apart. */
export async function accountOf(apiKey: string | undefined): Promise<string> {
  if (!apiKey) return 'anonymous';
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(apiKey));
  return `key:${[...new Uint8Array(digest).subarray(0, 8)].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

export function inScope(entry: JournalEntry, scope: JournalScope): boolean {
  return entry.server === scope.server && entry.account === scope.account;
}

/** How to name an entry's owner in a message (entries written before scoping have none). */
export function describeScope(entry: JournalEntry): string {
  return entry.server
    ? `${entry.server} (${entry.account ?? 'unknown key'})`
    : 'an unrecorded server (written by an older vidgen)';
}
