/**
 * Every way a relay attempt can fail, as TaskFailures whose messages reach the caller. None
 * carries an upstream URL, task id or key: at most the upstream's own error code, and only when
 * it is a plain word.
 */
import { FAILURES } from '../../domain/task-failure.ts';

/** An upstream's error code, if it is a plain identifier; anything else is dropped. */
export function safeCode(code: unknown): string | undefined {
  return typeof code === 'string' && /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/.test(code) ? code : undefined;
}

const withCode = (text: string, code: unknown) =>
  safeCode(code) ? `${text} (upstream code: ${safeCode(code)}).` : `${text}.`;

/**
 * An upstream's own failure words (new-api `fail_reason`), kept for the caller but cleaned: no
 * links, no long tokens (ids, keys), no control characters, and short.
 */
export function safeReason(reason: unknown): string | undefined {
  if (typeof reason !== 'string') return undefined;
  const cleaned = reason
    .replace(/\p{Cc}+/gu, ' ')
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, '[link]')
    .replace(/\S*[A-Za-z0-9_-]{24,}\S*/g, '[id]')
    .replace(/\s+/g, ' ')
    .trim();
  if (!cleaned) return undefined;
  return cleaned.length > 200 ? `${cleaned.slice(0, 199)}…` : cleaned;
}

/**
 * Codes reuse the engine's where the meaning is the same (docs/errors.md); the `upstream_*` ones
 * exist only because a relay can end in ways a local renderer cannot.
 */
export const relayFailures = {
  leaseLost: () => FAILURES.leaseLost(),
  noChannel: () =>
    FAILURES.invalidInput('No upstream channel is configured for this model, aspect ratio and duration.'),
  invalidImage: () => FAILURES.imageInvalid('An input image could not be read.'),
  invalidVideo: () => FAILURES.videoInvalid('The input video could not be read as an MP4.'),
  invalidAudio: () => FAILURES.invalidInput('A reference audio could not be read as WAV, MP3, AAC or M4A.'),
  rejected: (code: unknown) =>
    FAILURES.invalidInput(withCode('The upstream provider refused the request as invalid', code)),
  unavailable: () => FAILURES.backendUnavailable('No upstream channel accepted the task; it will be retried.'),
  busy: () => FAILURES.backendUnavailable('The upstream provider is rate limiting; the task will be retried.'),
  /** Invariant 2: the submit may have been charged, so nothing is sent again until a lookup settles it. */
  outcomeUnknown: () =>
    FAILURES.upstreamSubmitUnconfirmed(
      'The upstream did not confirm the submit; it is looked up before anything is sent again.',
      true,
    ),
  outcomeUnknowable: () =>
    FAILURES.upstreamSubmitUnconfirmed(
      'The upstream did not confirm the submit and offers no way to look it up, so it was not sent again.',
      false,
    ),
  channelGone: () => FAILURES.backendUnavailable('The upstream channel that holds this task is no longer configured.'),
  failed: (code: unknown, reason?: unknown) => {
    const words = safeReason(reason);
    return FAILURES.upstreamFailed(
      withCode(`The upstream provider could not generate the video${words ? `: "${words}"` : ''}`, code),
    );
  },
  moderated: () =>
    FAILURES.contentModerated('The upstream provider withheld the video by its content moderation; it is not retried.'),
  expired: () => FAILURES.upstreamResultExpired('The upstream result expired before it could be fetched.'),
  unknownState: () =>
    FAILURES.backendUnavailable(
      'The upstream kept reporting a state the relay does not know; the task will be retried.',
    ),
  unreachable: () => FAILURES.backendUnavailable('The upstream provider stopped answering; the task will be retried.'),
  taskMissing: () =>
    FAILURES.backendUnavailable('The upstream provider does not find the task; the task will be retried.'),
  refusedPoll: () =>
    FAILURES.backendUnavailable("The upstream provider refused the relay's credentials; the task will be retried."),
  timeout: () => FAILURES.deadlineExceeded('The upstream provider did not finish in time; the task will be retried.'),
  /** Invariant 2: the upstream job is canceled, and a new one would be a second charge. */
  deadlineFinal: () =>
    FAILURES.deadlineExceeded(
      'The upstream provider did not finish within the time limit; its job was canceled and is not retried, as a ' +
        'new one would be charged again.',
      false,
    ),
  download: (what: string) =>
    FAILURES.upstreamDownloadFailed(`The finished video could not be fetched from the upstream: ${what}.`, true),
  forbiddenLink: () =>
    FAILURES.upstreamDownloadFailed('The upstream handed out a video link the relay may not fetch.', false),
  tooLarge: (maxBytes: number) =>
    FAILURES.invalidOutput(
      `The upstream video is larger than the relay's limit of ${Math.round(maxBytes / 1024 / 1024)} MiB.`,
    ),
  unexpected: () => FAILURES.internalError('The relay failed unexpectedly; the task will be retried.'),
};
