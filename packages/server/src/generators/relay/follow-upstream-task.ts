/**
 * Polls one upstream task to a final state, on its own schedule: long-poll where the upstream
 * holds `?wait=`, else its Retry-After or the dialect's interval; backoff on errors; 429 is "not
 * yet", never a failure. Unknown states are tolerated up to a limit, then the attempt ends
 * transiently (the checkpoint keeps the id, so the next attempt picks the task up again).
 */
import type { RelayChannelConfig } from './relay-config.ts';
import type { RelayDialectSpec, UpstreamState } from './relay-dialects.ts';
import { relayFailures } from './relay-failures.ts';
import { parseRetryAfter } from '@vidgen/protocol/retry-after';
import { callUpstream, errorOf, UpstreamCallFailed, type UpstreamAnswer } from './relay-http.ts';
import { backoffMs, PollPacer, RelayAborted, sleep, type RelayTimings } from './relay-timing.ts';
import { noTracing, type Tracing } from '../../observability/tracing/tracing.ts';

export interface FollowRequest {
  channel: RelayChannelConfig;
  dialect: RelayDialectSpec;
  id: string;
  /** The upstream's model id (fal's status path names its app). */
  model: string;
  requestTimeoutMs: number;
  timings: RelayTimings;
  /** The upstream's own progress, 0..1. */
  onProgress(fraction: number): void;
  /** A span per poll (docs/observability.md); absent, none. */
  tracing?: Tracing;
}

/** Resolves with a succeeded, failed or expired state; throws a TaskFailure or RelayAborted. */
export async function followUpstreamTask(req: FollowRequest, signal: AbortSignal): Promise<UpstreamState> {
  const { channel, dialect, timings } = req;
  const pacer = new PollPacer(channel.pollIntervalMs, timings.longPollGapMs);
  let unknown = 0;
  let errors = 0;
  let last = '';
  for (;;) {
    const wait = pacer.longPolling ? channel.longPollSeconds : 0;
    const sentAt = Date.now();
    const answer = await poll(req, wait, signal);
    const hint = answer ? (parseRetryAfter(answer.headers) ?? pollAfterMs(answer.headers)) : undefined;
    if (!answer || answer.status >= 500) {
      if (++errors > timings.maxPollErrors) throw relayFailures.unreachable();
      await sleep(Math.max(hint ?? 0, backoffMs(errors, timings)), signal);
      continue;
    }
    errors = 0;
    if (answer.status === 429) {
      await sleep(hint ?? backoffMs(1, timings), signal);
      continue;
    }
    if (answer.status === 401 || answer.status === 403) throw relayFailures.refusedPoll();
    const state =
      answer.status === 200 || answer.status === 202
        ? dialect.state(answer.status, answer.body)
        : { phase: 'unknown' as const };
    if (state.progress !== undefined) req.onProgress(state.progress);
    if (state.phase === 'succeeded' || state.phase === 'failed' || state.phase === 'expired') return state;
    if (state.phase === 'unknown') {
      // Also a 404 (new-api: 400 `task_not_exist`): some upstreams list a new task a moment after accepting it.
      if (++unknown > timings.maxUnknownPolls)
        throw isMissing(answer) ? relayFailures.taskMissing() : relayFailures.unknownState();
      await sleep(Math.max(hint ?? 0, Math.min(channel.pollIntervalMs, backoffMs(unknown, timings))), signal);
      continue;
    }
    unknown = 0;
    const seen = `${state.phase}|${state.progress ?? ''}`;
    const changed = seen !== last;
    last = seen;
    await sleep(pacer.pause(Date.now() - sentAt, wait, hint, changed), signal);
  }
}

async function poll(req: FollowRequest, wait: number, signal: AbortSignal): Promise<UpstreamAnswer | undefined> {
  const tracing = req.tracing ?? noTracing;
  const attributes = {
    'vidgen.relay.channel': req.channel.name,
    'vidgen.relay.dialect': req.channel.dialect,
    'vidgen.relay.wait_s': wait,
  };
  try {
    return await tracing.withSpan('relay.poll', { attributes }, async (span) => {
      const answer = await callUpstream(
        req.channel,
        {
          method: 'GET',
          path: req.dialect.pollPath(req.id, req.model),
          query: { wait: wait > 0 ? wait : undefined },
          timeoutMs: req.requestTimeoutMs + wait * 1000,
        },
        signal,
      );
      if (tracing.enabled && (answer.status === 200 || answer.status === 202))
        span.setAttributes({ 'vidgen.relay.upstream_phase': req.dialect.state(answer.status, answer.body).phase });
      return answer;
    });
  } catch (err) {
    if (signal.aborted) throw new RelayAborted();
    if (err instanceof UpstreamCallFailed) return undefined;
    throw err;
  }
}

/** The OpenAI shape's pacing hint on a pending answer (`openai-poll-after-ms`), bounded to a sane range. */
function pollAfterMs(headers: Headers): number | undefined {
  const ms = Number(headers.get('openai-poll-after-ms') ?? NaN);
  return Number.isFinite(ms) && ms >= 0 ? Math.min(ms, 60_000) : undefined;
}

function isMissing(answer: UpstreamAnswer): boolean {
  return answer.status === 404 || (answer.status === 400 && errorOf(answer.body).code === 'task_not_exist');
}
