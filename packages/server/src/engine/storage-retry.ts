import { isStorageFault } from '../domain/storage-faults.ts';

/**
 * Runs a store write again while it fails with a storage fault (a dropped connection is
 * replaced at once by the pool; a database restart takes seconds), until `until`. Other
 * errors, and the last fault, are thrown. Only for writes that are safe to repeat: fenced
 * statements, whose repeat after an unseen success is refused and checked by the caller.
 */
export async function persistently<T>(write: () => Promise<T>, until: number, clock: () => number): Promise<T> {
  for (let delayMs = 100; ; delayMs = Math.min(delayMs * 2, 2000)) {
    try {
      return await write();
    } catch (err) {
      if (!isStorageFault(err) || clock() + delayMs >= until) throw err;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}
