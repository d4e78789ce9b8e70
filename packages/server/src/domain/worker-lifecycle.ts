import { channel } from 'node:diagnostics_channel';

/**
 * Each task worker and each webhook dispatcher announces its start and the end of its stop on
 * this diagnostics channel, with the leases (task leases, delivery claims) its owner still held
 * once it had stopped. Nothing in the service listens: the test runner's leak check
 * (scripts/leak-check.mjs) does, so that a test file fails when it leaves one running or a lease
 * held by a stopped one (DESIGN: "fails if it leaks a worker … or lease"), whichever service,
 * test helper or test started it. A channel without subscribers costs nothing.
 */
export const WORKER_LIFECYCLE_CHANNEL = 'vidgen:worker-lifecycle';

/** What holds leases: a task worker leases tasks, a webhook dispatcher claims deliveries. */
export type WorkerKind = 'task worker' | 'webhook dispatcher';

export type WorkerLifecycleEvent =
  | { event: 'started'; kind: WorkerKind; owner: string }
  /** `heldLeases`: ids of what the owner still leases (none after a clean stop); undefined when the store could not say. */
  | { event: 'stopped'; kind: WorkerKind; owner: string; heldLeases: string[] | undefined };

const lifecycle = channel(WORKER_LIFECYCLE_CHANNEL);

export function announceWorker(event: WorkerLifecycleEvent): void {
  if (lifecycle.hasSubscribers) lifecycle.publish(event);
}
