import type { TaskView } from '../wait/task-view.ts';
import type { PollPlan } from '../wait/wait-for.ts';
import type { Stream } from './cli-context.ts';
import { humanSize } from './human-size.ts';

const BAR_WIDTH = 24;

/**
 * Shows a wait and a download: a line redrawn in place on a terminal — every second, so the
 * clock never looks frozen between answers — and one plain line per change otherwise (logs and CI
 * keep a readable history instead of carriage-return noise).
 */
export class ProgressReporter {
  private lastLine = '';
  private drawn = false;
  private beganId: string | undefined;
  private readonly started = Date.now();
  private view: TaskView | undefined;
  private nextPollAt: number | undefined;
  private ticker: ReturnType<typeof setInterval> | undefined;

  private mode: 'unknown' | 'live' | 'interval' = 'unknown';

  constructor(private readonly stream: Stream) {}

  /** Shows the wait before the first answer, which a holding server may keep for a while. */
  begin(id: string): void {
    if (!this.stream.isTTY) return;
    this.beganId = id;
    this.drawTask();
    this.startTicker();
  }

  task(view: TaskView, poll?: PollPlan): void {
    if (!this.stream.isTTY) return this.plain(view);
    this.mode = poll === undefined ? 'unknown' : poll.longPoll ? 'live' : 'interval';
    this.nextPollAt = poll && !poll.longPoll ? Date.now() + poll.nextPollInMs : undefined;
    this.show(view);
  }

  private show(view: TaskView): void {
    this.view = view;
    this.drawTask();
    this.startTicker();
  }

  private startTicker(): void {
    this.ticker ??= setInterval(() => this.drawTask(), 1000);
    // The ticker must never keep a finished CLI alive.
    this.ticker.unref?.();
  }

  download(received: number, total: number | undefined): void {
    if (!this.stream.isTTY) return;
    this.stopTicker();
    const pct = total ? Math.min(100, Math.floor((received / total) * 100)) : undefined;
    const size = total ? `${humanSize(received, total)} of ${humanSize(total)}` : humanSize(received);
    this.draw(`downloading ${pct === undefined ? '' : `${bar(pct)} ${pct}% `}${size}`);
  }

  /** Ends the in-place line so later output starts on its own line. */
  done(): void {
    this.stopTicker();
    if (this.drawn) this.stream.write('\n');
    this.drawn = false;
  }

  private drawTask(): void {
    const view = this.view;
    const secs = Math.round((Date.now() - this.started) / 1000);
    if (!view) {
      if (this.beganId) this.draw(`${this.beganId} waiting for the server's first answer ${secs}s`);
      return;
    }
    // Long-polling answers the moment something happens; otherwise say when the next look is due.
    const mode =
      view.phase !== 'pending' || this.mode === 'unknown'
        ? ''
        : this.mode === 'live'
          ? ' · live'
          : ` · next check in ${Math.max(0, Math.ceil(((this.nextPollAt ?? 0) - Date.now()) / 1000))}s`;
    // A queued task has no progress to show yet, but its place in the queue moves.
    const place = queuePlace(view);
    const pct = percent(view);
    const state = place
      ? `${view.status}, ${place}`
      : pct === undefined
        ? view.status
        : `${bar(pct)} ${pct}% ${view.status}`;
    this.draw(`${view.id} ${state} ${secs}s${mode}`);
  }

  private draw(line: string): void {
    this.stream.write(`\r\x1b[2K${line}`);
    this.drawn = true;
  }

  private plain(view: TaskView): void {
    const pct = percent(view);
    const place = queuePlace(view);
    const line = `task ${view.id}: ${view.status}${place ? `, ${place}` : pct === undefined ? '' : ` ${pct}%`}`;
    if (line === this.lastLine) return;
    this.lastLine = line;
    this.stream.write(`${line}\n`);
  }

  private stopTicker(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = undefined;
  }
}

function percent(view: TaskView): number | undefined {
  return view.progress === undefined ? undefined : Math.max(0, Math.min(100, Math.round(view.progress)));
}

/** "next in line", "1 task ahead", "3 tasks ahead"; undefined unless the server says the task is queued. */
function queuePlace(view: TaskView): string | undefined {
  if (view.phase !== 'pending' || view.queuePosition === undefined) return undefined;
  if (view.queuePosition === 0) return 'next in line';
  return `${view.queuePosition} task${view.queuePosition === 1 ? '' : 's'} ahead`;
}

function bar(pct: number): string {
  const filled = Math.round((pct / 100) * BAR_WIDTH);
  return `[${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}]`;
}
