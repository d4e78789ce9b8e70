import type { TaskView } from '../wait/task-view.ts';
import type { Stream } from './cli-context.ts';

const BAR_WIDTH = 24;

/**
 * Shows a wait: a bar redrawn in place on a terminal, and one plain line per change otherwise
 * (logs and CI keep a readable history instead of carriage-return noise).
 */
export class ProgressReporter {
  private lastLine = '';
  private drawn = false;
  private readonly started = Date.now();

  constructor(private readonly stream: Stream) {}

  task(view: TaskView): void {
    const pct = view.progress === undefined ? undefined : Math.max(0, Math.min(100, Math.round(view.progress)));
    if (this.stream.isTTY) {
      const filled = Math.round(((pct ?? 0) / 100) * BAR_WIDTH);
      const bar = `${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}`;
      const secs = Math.round((Date.now() - this.started) / 1000);
      this.stream.write(`\r\x1b[2K${view.id} [${bar}] ${pct ?? '?'}% ${view.status} ${secs}s`);
      this.drawn = true;
      return;
    }
    const line = `task ${view.id}: ${view.status}${pct === undefined ? '' : ` ${pct}%`}`;
    if (line === this.lastLine) return;
    this.lastLine = line;
    this.stream.write(`${line}\n`);
  }

  /** Ends the in-place line so later output starts on its own line. */
  done(): void {
    if (this.drawn) this.stream.write('\n');
    this.drawn = false;
  }
}
