/**
 * Every way a relay attempt can fail, as GenerationErrors whose messages reach the caller. None
 * carries an upstream URL, task id or key: at most the upstream's own error code, and only when
 * it is a plain word.
 */
import { GenerationError } from '../generator.ts';

/** An upstream's error code, if it is a plain identifier; anything else is dropped. */
export function safeCode(code: unknown): string | undefined {
  return typeof code === 'string' && /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/.test(code) ? code : undefined;
}

const withCode = (text: string, code: unknown) => (safeCode(code) ? `${text} (upstream code: ${safeCode(code)}).` : `${text}.`);

/**
 * Codes reuse the engine's where the meaning is the same (docs/errors.md); the `upstream_*` ones
 * exist only because a relay can end in ways a local renderer cannot.
 */
export const relayFailures = {
  canceled: () => new GenerationError('canceled', 'The task was canceled.', false),
  leaseLost: () => new GenerationError('canceled', 'The attempt lost its lease and stopped.', false),
  noChannel: () => new GenerationError('invalid_input', 'No upstream channel is configured for this model, aspect ratio and duration.', false),
  invalidImage: () => new GenerationError('image_invalid', 'An input image could not be read.', false),
  rejected: (code: unknown) => new GenerationError('invalid_input', withCode('The upstream provider refused the request as invalid', code), false),
  unavailable: () => new GenerationError('backend_unavailable', 'No upstream channel accepted the task; it will be retried.', true),
  busy: () => new GenerationError('backend_unavailable', 'The upstream provider is rate limiting; the task will be retried.', true),
  /** Invariant 2: the submit may have been charged, so nothing is sent again until a lookup settles it. */
  outcomeUnknown: () =>
    new GenerationError('upstream_submit_unconfirmed', 'The upstream did not confirm the submit; it is looked up before anything is sent again.', true),
  outcomeUnknowable: () =>
    new GenerationError('upstream_submit_unconfirmed', 'The upstream did not confirm the submit and offers no way to look it up, so it was not sent again.', false),
  channelGone: () => new GenerationError('backend_unavailable', 'The upstream channel that holds this task is no longer configured.', true),
  failed: (code: unknown) => new GenerationError('upstream_failed', withCode('The upstream provider could not generate the video', code), false),
  expired: () => new GenerationError('upstream_result_expired', 'The upstream result expired before it could be fetched.', false),
  unknownState: () => new GenerationError('backend_unavailable', 'The upstream kept reporting a state the relay does not know; the task will be retried.', true),
  unreachable: () => new GenerationError('backend_unavailable', 'The upstream provider stopped answering; the task will be retried.', true),
  taskMissing: () => new GenerationError('backend_unavailable', 'The upstream provider does not find the task; the task will be retried.', true),
  refusedPoll: () => new GenerationError('backend_unavailable', "The upstream provider refused the relay's credentials; the task will be retried.", true),
  timeout: () => new GenerationError('deadline_exceeded', 'The upstream provider did not finish in time; the task will be retried.', true),
  download: (what: string) => new GenerationError('upstream_download_failed', `The finished video could not be fetched from the upstream: ${what}.`, true),
  forbiddenLink: () => new GenerationError('upstream_download_failed', 'The upstream handed out a video link the relay may not fetch.', false),
  tooLarge: (maxBytes: number) =>
    new GenerationError('invalid_output', `The upstream video is larger than the relay's limit of ${Math.round(maxBytes / 1024 / 1024)} MiB.`, false),
  unexpected: () => new GenerationError('internal_error', 'The relay failed unexpectedly; the task will be retried.', true),
};
