/**
 * Gets the job an upstream task to follow: the one an earlier attempt left in the checkpoint, or a
 * new one. A create goes to the channels in priority order, and on to the next only when the
 * answer proves nothing was created there (refused connection, 401/403/404, model unknown, 429,
 * 503 "no channel"). A lost answer is reconciled on the same channel and never sent elsewhere:
 * that could pay twice (invariant 2, docs/architecture.md).
 */
import type { BackendCheckpoint } from '../generator.ts';
import type { RelayBackendConfig, RelayChannelConfig } from './relay-config.ts';
import { parseRelayCheckpoint, type RelayCheckpoint } from './relay-checkpoint.ts';
import { RELAY_DIALECTS } from './relay-dialects.ts';
import { relayFailures } from './relay-failures.ts';
import { idempotencyKeyFor, payloadFor, type RelayJob, type RelayPlan } from './relay-request.ts';
import { canReconcile, reconcileSubmit } from './reconcile-submit.ts';
import { sendSubmit, type RefusalReason, type SubmitRequest } from './submit-outcome.ts';
import { sleep, type RelayTimings } from './relay-timing.ts';
import type { ChannelHealth } from './channel-health.ts';

export interface Attached {
  channel: RelayChannelConfig;
  id: string;
  /** The upstream's model id. */
  model: string;
  idempotencyKey: string;
}

export interface AttachContext {
  job: RelayJob;
  plan: RelayPlan;
  config: RelayBackendConfig;
  checkpoint: BackendCheckpoint;
  timings: RelayTimings;
  /** The shared breaker and limits; absent, every channel is always admitted. */
  health?: ChannelHealth;
  now(): number;
  /** Channels known (configured or learned) to replay a create by its Idempotency-Key. */
  replays: { has(channelId: string): boolean; learn(channelId: string): void };
  log(event: string, channel: RelayChannelConfig, extra?: Record<string, unknown>): void;
}

type ChannelResult = { kind: 'attached'; attached: Attached } | { kind: 'refused'; why: RefusalReason };

/** A create proven absent after a lost answer is sent again, but not forever. */
const MAX_SUBMIT_ROUNDS = 3;

export async function attachUpstreamTask(a: AttachContext, signal: AbortSignal): Promise<Attached> {
  const saved = parseRelayCheckpoint(await a.checkpoint.load());
  if (saved) {
    const channel = a.config.channels.find((c) => c.id === saved.channel);
    if (!channel) throw relayFailures.channelGone();
    if (saved.upstreamCanceled) throw relayFailures.deadlineFinal();
    if (saved.upstreamId) {
      a.log('following the upstream task of an earlier attempt', channel);
      // Its job runs upstream whatever the limits say now: it holds its slot again.
      await a.health?.acquire(channel.id, a.job.taskId, channel.limits, holdUntil(a), a.now(), true);
      return {
        channel,
        id: saved.upstreamId,
        model: channel.models[a.plan.model],
        idempotencyKey: saved.idempotencyKey,
      };
    }
    const resumed = await resume(a, channel, saved, signal);
    if (resumed) return resumed;
  }
  for (;;) {
    const refusals: RefusalReason[] = [];
    let skipped = 0;
    for (const channel of a.plan.candidates) {
      if (!(await admitted(a, channel))) {
        skipped++;
        continue;
      }
      const result = await submitOn(a, channel, signal);
      if (result.kind === 'attached') {
        await a.health?.succeeded(channel.id, a.now());
        return result.attached;
      }
      refusals.push(result.why);
      await a.health?.release(a.job.taskId);
      if (
        a.health &&
        DEFINITE_FAILURES.has(result.why) &&
        (await a.health.failed(channel.id, a.config.breaker, a.now())) === 'open'
      ) {
        a.log('the channel failed too often; its breaker is open', channel, { why: result.why });
      }
      a.log('channel refused the task; trying the next one', channel, { why: result.why });
    }
    // Every channel tried proved it created nothing: nothing to reconcile on the next attempt.
    if (refusals.length > 0) await save(a, null);
    // Channels skipped for their breaker or their limits are not failures: the task waits for one to free up.
    if (skipped === 0)
      throw refusals.every((why) => why === 'busy') ? relayFailures.busy() : relayFailures.unavailable();
    await sleep(a.timings.channelWaitMs, signal);
  }
}

/** Refusals that say the channel itself is broken (not busy, not lacking the model): they count towards its breaker. */
const DEFINITE_FAILURES = new Set<RefusalReason>(['unreachable', 'auth', 'unavailable']);

/** The breaker lets the channel take a task (or this one as its probe), and its limits have room. */
async function admitted(a: AttachContext, channel: RelayChannelConfig): Promise<boolean> {
  if (!a.health) return true;
  const admission = await a.health.admit(channel.id, a.config.breaker, a.now());
  if (admission === 'no') return false;
  if (admission === 'probe') a.log('probing a channel whose breaker was open', channel);
  if (await a.health.acquire(channel.id, a.job.taskId, channel.limits, holdUntil(a), a.now())) return true;
  a.log('the channel is at its limit; skipping it', channel);
  return false;
}

/** A slot is held for the whole attempt; a crashed worker's lapses by itself. */
function holdUntil(a: AttachContext): number {
  return a.now() + a.config.timeoutMs + a.config.downloadTimeoutMs;
}

/** An earlier attempt sent a create and never learned its fate: settle that before sending anything. */
async function resume(
  a: AttachContext,
  channel: RelayChannelConfig,
  saved: RelayCheckpoint,
  signal: AbortSignal,
): Promise<Attached | undefined> {
  const req = { ...submitRequest(a, channel), idempotencyKey: saved.idempotencyKey };
  const settled = await reconcileSubmit(req, () => a.replays.has(channel.id), signal);
  if (settled.kind === 'found')
    return attach(a, channel, saved.idempotencyKey, settled.id, 'found the create of an earlier attempt');
  if (settled.kind === 'rejected') throw relayFailures.rejected(settled.code);
  if (settled.kind === 'absent') return undefined;
  a.log('the outcome of an earlier create is still unknown; not sending it again', channel);
  throw canReconcile(req, a.replays.has(channel.id))
    ? relayFailures.outcomeUnknown()
    : relayFailures.outcomeUnknowable();
}

async function submitOn(a: AttachContext, channel: RelayChannelConfig, signal: AbortSignal): Promise<ChannelResult> {
  const req = submitRequest(a, channel);
  // Before the first byte leaves: a crash from here on leaves something to reconcile.
  await save(a, { relay: 1, channel: channel.id, idempotencyKey: req.idempotencyKey });
  for (let round = 1; ; round++) {
    const outcome = await sendSubmit(req, signal);
    if (outcome.kind === 'created')
      return {
        kind: 'attached',
        attached: await attach(a, channel, req.idempotencyKey, outcome.id, 'upstream accepted the task'),
      };
    if (outcome.kind === 'refused') return outcome;
    if (outcome.kind === 'rejected') throw relayFailures.rejected(outcome.code);
    a.log('the create got no clear answer; reconciling', channel, { outcome: outcome.kind });
    const settled = await reconcileSubmit(req, () => a.replays.has(channel.id), signal);
    if (settled.kind === 'found')
      return {
        kind: 'attached',
        attached: await attach(a, channel, req.idempotencyKey, settled.id, 'reconciled the create'),
      };
    if (settled.kind === 'rejected') throw relayFailures.rejected(settled.code);
    if (settled.kind === 'absent' && round < MAX_SUBMIT_ROUNDS) continue;
    if (settled.kind === 'absent') throw relayFailures.unavailable();
    a.log('the outcome of the create is unknown; not sending it again', channel);
    throw canReconcile(req, a.replays.has(channel.id))
      ? relayFailures.outcomeUnknown()
      : relayFailures.outcomeUnknowable();
  }
}

function submitRequest(a: AttachContext, channel: RelayChannelConfig): SubmitRequest {
  const dialect = RELAY_DIALECTS[channel.dialect];
  const payload = payloadFor(a.plan, a.job, channel);
  return {
    channel,
    dialect,
    path: dialect.submitPath(payload),
    body: dialect.submitBody(payload, channel),
    encoding: dialect.submitEncoding?.(payload, channel),
    idempotencyKey: idempotencyKeyFor(a.job.taskId, channel),
    timeoutMs: channel.submitTimeoutMs ?? a.config.requestTimeoutMs,
    timings: a.timings,
    learnedReplay: () => a.replays.learn(channel.id),
  };
}

/** The upstream id is stored before any waiting, so a later attempt follows this task instead of paying again. */
async function attach(
  a: AttachContext,
  channel: RelayChannelConfig,
  idempotencyKey: string,
  id: string,
  event: string,
): Promise<Attached> {
  await save(a, { relay: 1, channel: channel.id, idempotencyKey, upstreamId: id, ...unstoppable(channel) });
  a.log(event, channel);
  return { channel, id, model: channel.models[a.plan.model], idempotencyKey };
}

/**
 * For a channel that cannot cancel, what a cancel of the task it accepted costs: kept with the
 * upstream id, where the ledger reads it when the task is canceled (billing/ledger-effects.ts).
 */
export function unstoppable(channel: RelayChannelConfig): Pick<RelayCheckpoint, 'unstoppable'> {
  if (channel.cancel && RELAY_DIALECTS[channel.dialect].cancel) return {};
  const perSecond = channel.upstreamUsdTicksPerSecond;
  return {
    unstoppable: {
      charge: channel.cancelCharge,
      ...(perSecond !== undefined ? { upstreamUsdTicksPerSecond: perSecond } : {}),
    },
  };
}

async function save(a: AttachContext, state: RelayCheckpoint | null): Promise<void> {
  if (!(await a.checkpoint.save(state))) throw relayFailures.leaseLost();
}
