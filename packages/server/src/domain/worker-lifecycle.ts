import { channel } from 'node:diagnostics_channel';

/**
 * Each task worker and each webhook dispatcher announces its start and the end of its stop on
 * this diagnostics channel, with the leases (task leases, delivery claims) its owner still held
 * once it had stopped. Nothing in the service listens: the test runner's leak check
 * (scripts/leak-check.mjs) does, so that a test file fails when it leaves one running or a lease
 * held by a stopped one (a test file fails if it leaks a worker or a lease: docs/architecture.md, "Tests"), whichever
 * service,
 * test helper or test started it. A channel without subscribers costs nothing.
 */
export const WORKER_LIFECYCLE_CHANNEL = 'vidgen:worker-lifecycle';

/** What holds leases: a task worker leases tasks, a webhook dispatcher claims deliveries. */
export type WorkerKind = 'task worker' | 'webhook dispatcher';

export type WorkerLifecycleEvent =
  | { event: 'started'; kind: WorkerKind; owner: string }
  /**
   * `heldLeases`: ids of what the owner still leases (none after a clean stop); undefined when the store could not say.
   */
  | { event: 'stopped'; kind: WorkerKind; owner: string; heldLeases: string[] | undefined };

const lifecycle = channel(WORKER_LIFECYCLE_CHANNEL);

export function announceWorker(event: WorkerLifecycleEvent): void {
  if (lifecycle.hasSubscribers) lifecycle.publish(event);
}

export interface LeaseHolderStop {
  kind: WorkerKind;
  owner: string;
  graceMs: number;
  /** Settles when every attempt in flight has ended and handed its lease back or ended it. */
  finished: Promise<unknown>;
  /** Stops the attempts still running once the grace is over; each then hands its lease back. */
  abortRunning(): void;
  /** Ids the owner still leases. */
  leasedBy(owner: string): Promise<string[]>;
  /** Says that some leases outlived the stop (their hand-back met a storage fault). */
  warnHeld(held: string[]): void;
}

/**
 * The one way a lease holder (task worker, webhook dispatcher) stops, once it has stopped claiming:
 * what is in flight may finish within the grace, the rest is stopped and hands its leases back. A
 * lease still held after that runs out and is taken over by another holder's next claim.
 */
export async function stopLeaseHolder(stop: LeaseHolderStop): Promise<void> {
  await Promise.race([stop.finished, new Promise<void>((resolve) => setTimeout(resolve, stop.graceMs).unref())]);
  stop.abortRunning();
  await stop.finished;
  const held = await stop.leasedBy(stop.owner).catch(() => undefined);
  if (held?.length) stop.warnHeld(held);
  announceWorker({ event: 'stopped', kind: stop.kind, owner: stop.owner, heldLeases: held });
}
