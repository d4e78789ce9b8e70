import type { ModelEntry } from '../catalog/model-catalog.ts';
import type { Task } from '../domain/task.ts';
import { cancelCost } from '../catalog/cancel-charge.ts';
import { parseRelayCheckpoint } from '../generators/relay/relay-checkpoint.ts';
import { chargeFromHold, heldSeconds } from './prices.ts';

/** What an ended task costs its account, what its upstream cost the operator (when known), and why. */
export interface EndedOutcome {
  costUsdTicks: number;
  /** Undefined: nothing known beyond what the completion itself recorded. */
  upstreamCostUsdTicks?: number;
  reason: string;
}

/**
 * The price of a task that just ended, from its hold:
 * - succeeded: its verified output at the price per second it was held at (prices.ts chargeFromHold);
 * - canceled after an upstream that cannot cancel accepted it: the model's `cancel_charge` where
 *   the catalog gives one, else the channel's (kept in the checkpoint when the upstream accepted
 *   it): nothing by default, a fee, or the full hold, since the upstream renders and bills on;
 * - otherwise nothing.
 * The upstream's cost comes from its own report (kept in the relay's checkpoint) on every outcome,
 * or for a render nobody follows any more, from the channel's configured price per second.
 */
export function endedOutcome(
  task: Task,
  model: ModelEntry | undefined,
  held: number,
  backendState: unknown,
): EndedOutcome {
  if (task.status === 'succeeded')
    return { costUsdTicks: chargeFromHold(model, task, held), reason: `${task.model}: verified output` };
  const relay = parseRelayCheckpoint(parseState(backendState));
  const reported = relay?.upstreamCostUsdTicks;
  const unstoppable = relay?.upstreamId && !relay.upstreamCanceled ? relay.unstoppable : undefined;
  if (task.status !== 'canceled' || !unstoppable)
    return { costUsdTicks: 0, upstreamCostUsdTicks: reported, reason: `task ${task.status}` };
  const perSecond = unstoppable.upstreamUsdTicksPerSecond;
  const estimated = perSecond !== undefined && model ? perSecond * heldSeconds(model, task) : undefined;
  const charge = model?.cancelCharge ?? unstoppable.charge;
  const whose = model?.cancelCharge ? "the model's" : "the channel's";
  return {
    costUsdTicks: cancelCost(charge, held),
    upstreamCostUsdTicks: reported ?? estimated,
    reason: `canceled after the upstream accepted it (${whose} cancel_charge ${charge.kind})`,
  };
}

/** The task row's backend state: JSON text (SQLite, PostgreSQL text column), or already parsed. */
function parseState(value: unknown): unknown {
  if (typeof value !== 'string') return value ?? undefined;
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}
