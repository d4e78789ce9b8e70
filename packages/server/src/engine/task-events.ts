import { EventEmitter } from 'node:events';

/**
 * In-process wake-up hints. The database stays the truth: a missed event only costs a
 * worker its next poll interval.
 */
export class TaskEvents {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  taskQueued(backend: string): void {
    this.emitter.emit('queued', backend);
  }

  onQueued(listener: (backend: string) => void): () => void {
    this.emitter.on('queued', listener);
    return () => this.emitter.off('queued', listener);
  }
}
