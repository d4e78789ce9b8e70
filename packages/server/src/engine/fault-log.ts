/**
 * A fault that lasts is said once when it starts, then at most once per `intervalMs` while it lasts
 * (with how many times it was met meanwhile), and once more when it ends: a full disk met at every
 * poll would otherwise fill the log (invariant 9, docs/architecture.md).
 */
export function faultLog(intervalMs: number, clock: () => number) {
  let since: number | undefined;
  let lastSaid = 0;
  let unsaid = 0;
  return {
    /** A failure: whether to say it now, and how many were left unsaid before it. */
    failed(): { say: boolean; unsaid: number } {
      const now = clock();
      if (since === undefined || now - lastSaid >= intervalMs) {
        since ??= now;
        lastSaid = now;
        const skipped = unsaid;
        unsaid = 0;
        return { say: true, unsaid: skipped };
      }
      unsaid++;
      return { say: false, unsaid };
    },
    /** A success: when a fault was under way, for how long (ms), so that its end is said too. */
    recovered(): number | undefined {
      if (since === undefined) return undefined;
      const lasted = clock() - since;
      since = undefined;
      unsaid = 0;
      return lasted;
    },
  };
}
