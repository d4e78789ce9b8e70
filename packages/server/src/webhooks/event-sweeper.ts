import type { Logger } from 'pino';
import type { EventLog } from './event-log.ts';

/**
 * Removes events past their retention, a batch at a time (many processes may sweep at once: a
 * delete of rows already gone does nothing). A delivery whose event is gone fails with a reason.
 */
export function startEventSweeper(deps: {
  events: EventLog;
  retentionMs: number;
  intervalMs: number;
  logger: Logger;
  clock: () => number;
}): { stop(): void; sweep(): Promise<number> } {
  async function sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const removed = await deps.events.sweep(deps.clock() - deps.retentionMs, 1000);
      total += removed;
      if (removed < 1000) return total;
    }
  }
  const timer = setInterval(() => {
    sweep().catch((err) => deps.logger.error({ err }, 'event retention sweep failed'));
  }, deps.intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer), sweep };
}
