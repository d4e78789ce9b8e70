/**
 * Sends one create to a channel and says what it proved. The distinction that matters (invariant 2,
 * docs/architecture.md) is between answers that prove no upstream task exists — the next channel may be
 * tried — and answers that prove nothing, which must be reconciled before anything is sent again.
 */
import type { RelayChannelConfig, RelayUpstreamKind } from './relay-config.ts';
import type { RelayDialectSpec } from './relay-dialects.ts';
import { callUpstream, errorOf, UpstreamCallFailed, type UpstreamAnswer } from './relay-http.ts';
import { sleep, type RelayTimings } from './relay-timing.ts';

export type RefusalReason = 'unreachable' | 'auth' | 'model' | 'busy' | 'unavailable';

export type SubmitOutcome =
  | { kind: 'created'; id: string }
  /** Definitely not created: another channel may take the task. */
  | { kind: 'refused'; why: RefusalReason }
  /** The upstream refused our input (400): no channel will take it. */
  | { kind: 'rejected'; code?: string }
  /** The same key is still being processed upstream (409). */
  | { kind: 'in_flight' }
  /** The key was used with another body (422): an earlier attempt's task may exist. */
  | { kind: 'key_reused' }
  /** No answer, or one that does not say whether a task was created. */
  | { kind: 'ambiguous' };

export interface SubmitRequest {
  channel: RelayChannelConfig;
  dialect: RelayDialectSpec;
  /** The create's path (fal and Replicate name the model in it). */
  path: string;
  body: Record<string, unknown>;
  /** Multipart where the dialect says so (the OpenAI shape); JSON otherwise. */
  encoding?: 'json' | 'multipart';
  idempotencyKey: string;
  timeoutMs: number;
  timings: RelayTimings;
  /** Told when an answer proves the channel honours Idempotency-Key. */
  learnedReplay(): void;
}

/**
 * Codes that mean "this channel cannot serve that model", not "your input is wrong". new-api's
 * `model_price_error` (400) is its operator's pricing config and `model_mapping_failed` its channel
 * mapping (relay/relay_task.go): the channel's problem, so the next channel may take the task.
 */
const MODEL_CODES = new Set([
  'model_not_found',
  'model_not_supported',
  'model_wrong_endpoint',
  'invalid_model',
  'model_not_available',
  'unsupported_model',
  'model_price_error',
  'model_mapping_failed',
  'invalid_api_platform',
]);
/**
 * A 500/503 with one of these is a clear "no channel here", not a lost answer: new-api answers
 * `get_channel_failed` (500) and `model_not_found` (503) from its distributor, before any provider call.
 */
const NO_CHANNEL_CODES = new Set([
  ...MODEL_CODES,
  'no_available_channel',
  'channel_not_found',
  'get_channel_failed',
  'no_channel_available',
]);
/** xAI answers a bad or missing key with 400 "Incorrect API key provided…", not 401. */
const KEY_MESSAGE = /\b(api[ _-]?key|unauthenticated|unauthori[sz]ed|permission)\b/i;
/** xAI's "overloaded" (xai-sdk-ts OverloadedError): a refusal, nothing was queued. */
const OVERLOADED = 529;
const MAX_IN_FLIGHT_RETRIES = 5;

export function classifySubmit(
  answer: UpstreamAnswer,
  dialect: RelayDialectSpec,
  upstream: RelayUpstreamKind = 'vidgen',
): SubmitOutcome {
  const { status } = answer;
  const { code, message } = errorOf(answer.body);
  if (status >= 200 && status < 300) {
    const id = dialect.idOf(answer.body);
    return id ? { kind: 'created', id } : { kind: 'ambiguous' };
  }
  if (status === 400 && code && MODEL_CODES.has(code)) return { kind: 'refused', why: 'model' };
  // Gemini too: 400 INVALID_ARGUMENT "API key not valid. Please pass a valid API key."
  if (status === 400 && (upstream === 'xai' || upstream === 'gemini') && message && KEY_MESSAGE.test(message))
    return { kind: 'refused', why: 'auth' };
  if (status === 400) return { kind: 'rejected', code };
  if (status === 401 || status === 402 || status === 403) return { kind: 'refused', why: 'auth' };
  if (status === 404 || status === 405 || status === 501) return { kind: 'refused', why: 'model' };
  if (status === 409) return { kind: 'in_flight' };
  if (status === 422 && code === 'idempotency_key_reused') return { kind: 'key_reused' };
  if (status === 429 || status === OVERLOADED) return { kind: 'refused', why: 'busy' };
  if ((status === 503 || status === 500) && code && NO_CHANNEL_CODES.has(code))
    return { kind: 'refused', why: 'unavailable' };
  // new-api records a task only after its provider accepted it (relay/relay_task.go, then the
  // controller inserts it): any error answer of its own, `{code, message}`, proves none exists.
  if (status >= 500 && upstream === 'new-api' && code && message !== undefined)
    return { kind: 'refused', why: 'unavailable' };
  if (status >= 400 && status < 500) return { kind: 'rejected', code };
  // 5xx without a clear answer, or an unexpected redirect: the task may exist.
  return { kind: 'ambiguous' };
}

/** POST with the task's Idempotency-Key; a create still in flight upstream is waited for, a few times. */
export async function sendSubmit(req: SubmitRequest, signal: AbortSignal): Promise<SubmitOutcome> {
  for (let retry = 0; ; retry++) {
    let outcome: SubmitOutcome;
    try {
      const answer = await callUpstream(
        req.channel,
        {
          method: 'POST',
          path: req.path,
          body: req.body,
          headers: { 'idempotency-key': req.idempotencyKey },
          encoding: req.encoding,
          timeoutMs: req.timeoutMs,
        },
        signal,
      );
      outcome = classifySubmit(answer, req.dialect, req.channel.upstream);
      if (
        answer.headers.get('idempotent-replayed') === 'true' ||
        outcome.kind === 'in_flight' ||
        outcome.kind === 'key_reused'
      )
        req.learnedReplay();
    } catch (err) {
      if (!(err instanceof UpstreamCallFailed)) throw err;
      outcome = err.sent === 'no' ? { kind: 'refused', why: 'unreachable' } : { kind: 'ambiguous' };
    }
    if (outcome.kind !== 'in_flight') return outcome;
    if (retry >= MAX_IN_FLIGHT_RETRIES) return { kind: 'ambiguous' };
    await sleep(req.timings.inFlightRetryMs, signal);
  }
}
