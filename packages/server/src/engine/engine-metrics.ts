/** What the engine reports as it works; `observability/` turns it into Prometheus metrics. */
export interface EngineMetrics {
  /** A task was claimed after waiting `queuedMs` since it became runnable. */
  claimed(backend: string, queuedMs: number): void;
  reclaimed(count: number): void;
  retried(backend: string): void;
  attemptEnded(backend: string, outcome: string, durationMs: number): void;
}

export const noMetrics: EngineMetrics = {
  claimed: () => undefined,
  reclaimed: () => undefined,
  retried: () => undefined,
  attemptEnded: () => undefined,
};
