import { EventEmitter } from 'node:events';

/**
 * In-process wake-up hints. The database stays the truth: a missed event only costs a
 * worker its next poll interval, or a long-poll its next re-read.
 */
export class TaskEvents {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  /** `remote`: the hint came from another process (through the database), not from here. */
  taskQueued(backend: string, remote = false): void {
    this.emitter.emit('queued', backend, remote);
  }

  onQueued(listener: (backend: string, remote: boolean) => void): () => void {
    this.emitter.on('queued', listener);
    return () => this.emitter.off('queued', listener);
  }

  /** A task was canceled: a worker of this process running it stops at once. */
  taskCanceled(taskId: string, remote = false): void {
    this.emitter.emit('canceled', taskId, remote);
    // Flagged as carried already: other processes learn of the change from the cancel's own hint.
    this.taskChanged(taskId, true);
  }

  onCanceled(listener: (taskId: string, remote: boolean) => void): () => void {
    this.emitter.on('canceled', listener);
    return () => this.emitter.off('canceled', listener);
  }

  /**
   * A task's state or progress changed: here, or (`remote`) in another process, as a hint that
   * came through the database (or one that reaches other processes by a hint of its own, a cancel's).
   */
  taskChanged(taskId: string, remote = false): void {
    this.emitter.emit(`changed:${taskId}`);
    this.emitter.emit('changed', taskId, remote);
  }

  /** Every task's changes (one listener for all: the wake-up bridge, the stream watchers). */
  onChanged(listener: (taskId: string, remote: boolean) => void): () => void {
    this.emitter.on('changed', listener);
    return () => this.emitter.off('changed', listener);
  }

  /** Resolves on the next change of the task, after `timeoutMs`, or when `signal` aborts. */
  nextChange(taskId: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const event = `changed:${taskId}`;
      const done = () => {
        clearTimeout(timer);
        this.emitter.off(event, done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.emitter.once(event, done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}
