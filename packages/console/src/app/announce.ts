import { byId } from './dom.ts';

/**
 * Speaks status changes to screen readers through the page's one polite live region.
 * Only transitions are announced (submitted, done, failed), never each progress tick.
 */
export function announce(message: string): void {
  const region = byId('announcer');
  // Clearing first makes the same sentence twice in a row be read twice.
  region.textContent = '';
  setTimeout(() => (region.textContent = message), 50);
}
