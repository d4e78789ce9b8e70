/**
 * Settles a create whose answer was lost (invariant 2, docs/architecture.md). An upstream known to replay by
 * Idempotency-Key is simply asked again with the same key: it answers with the task it has, or
 * creates the one it never got. Otherwise the listing is searched for the key. Only a proven
 * absence lets the caller send the create again; anything less is "unknown".
 */
import { findUpstreamTask } from './find-upstream-task.ts';
import { sendSubmit, type SubmitRequest } from './submit-outcome.ts';
import { backoffMs, sleep } from './relay-timing.ts';

export type Reconciled =
  | { kind: 'found'; id: string }
  | { kind: 'absent' }
  | { kind: 'rejected'; code?: string }
  | { kind: 'unknown' };

const REPLAY_TRIES = 2;
const LOOKUP_TRIES = 3;

/** Whether a lost answer on this channel can ever be settled; when not, the task must not be resent. */
export function canReconcile(req: SubmitRequest, replays: boolean): boolean {
  return replays || req.channel.lookupByIdempotencyKey;
}

export async function reconcileSubmit(
  req: SubmitRequest,
  replays: () => boolean,
  signal: AbortSignal,
): Promise<Reconciled> {
  if (replays()) {
    for (let i = 1; i <= REPLAY_TRIES; i++) {
      const outcome = await sendSubmit(req, signal);
      if (outcome.kind === 'created') return { kind: 'found', id: outcome.id };
      // The same body with the same key was refused as invalid: neither send made a task.
      if (outcome.kind === 'rejected') return outcome;
      // A refusal now says nothing about the earlier send; the listing decides.
      if (outcome.kind !== 'ambiguous') break;
      await sleep(backoffMs(i, req.timings), signal);
    }
  }
  if (!req.channel.lookupByIdempotencyKey) return { kind: 'unknown' };
  // A create still being processed upstream is not listed yet; give it a moment to land.
  await sleep(req.timings.reconcileSettleMs, signal);
  for (let i = 1; i <= LOOKUP_TRIES; i++) {
    const found = await findUpstreamTask(req.channel, req.dialect, req.idempotencyKey, req.timeoutMs, signal);
    if (found.kind === 'found' || found.kind === 'absent') return found;
    if (found.kind === 'unsupported') break;
    if (i < LOOKUP_TRIES) await sleep(backoffMs(i, req.timings), signal);
  }
  return { kind: 'unknown' };
}
