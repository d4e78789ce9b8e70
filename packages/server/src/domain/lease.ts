/**
 * A claim on one row of a lease-guarded queue: the task a worker runs, the webhook delivery a
 * dispatcher sends. Both queues work the same way (docs/architecture.md, "Leases"):
 * - a claim sets the row's owner, adds one to its token and gives the lease an expiry;
 * - every later write of the holder is one statement guarded by id, owner and token together (the
 *   fence), so a holder whose lease ran out and was taken over writes nothing;
 * - the holder renews or ends the lease; a lease that runs out is taken over by the next claim.
 */
export interface Lease {
  /** The leased row: a task id or a delivery id. */
  id: string;
  owner: string;
  /** The fence: grows with every claim of the row. */
  token: number;
  expiresAt: number;
}
