import { channel } from 'node:diagnostics_channel';

/**
 * Each task worker announces its start and the end of its stop on this diagnostics channel,
 * with the leases its owner still held once it had stopped. Nothing in the service listens:
 * the test runner's leak check (scripts/leak-check.mjs) does, so that a test file fails when it
 * leaves a worker running or a lease held by a stopped worker (DESIGN: "fails if it leaks a
 * worker … or lease"), whichever service, test helper or test started the worker. A channel
 * without subscribers costs nothing.
 */
export const WORKER_LIFECYCLE_CHANNEL = 'vidgen:worker-lifecycle';

export type WorkerLifecycleEvent =
  | { event: 'started'; owner: string }
  /** `heldLeases`: running tasks still leased by the owner (none after a clean stop); undefined when the store could not say. */
  | { event: 'stopped'; owner: string; heldLeases: string[] | undefined };

const lifecycle = channel(WORKER_LIFECYCLE_CHANNEL);

export function announceWorker(event: WorkerLifecycleEvent): void {
  if (lifecycle.hasSubscribers) lifecycle.publish(event);
}
