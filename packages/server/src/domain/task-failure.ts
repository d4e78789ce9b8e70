/**
 * The one vocabulary of task failures (docs/architecture.md, "Failures"). A task's `error.code`
 * is always one of these: backends build failures only through `FAILURES`, and `media/`'s own typed
 * errors become failures only in the engine's `toTaskFailure`, so no code can appear that docs/errors.md (checked
 * by a test against this file) does not list. Messages reach the caller: never a path, URL or key.
 */

/**
 * Every code, and whether the engine retries it. `depends` codes are retried or not by the factory's
 * caller, who knows (e.g. a relay knows whether the upstream can be asked about a lost submit).
 */
const RETRIED = {
  image_unreachable: false,
  image_unavailable: false,
  image_invalid: false,
  image_too_large: false,
  input_too_large: false,
  video_unreachable: false,
  video_unavailable: false,
  video_invalid: false,
  video_unsupported: false,
  audio_unreachable: false,
  audio_unavailable: false,
  audio_invalid: false,
  edit_not_understood: false,
  invalid_input: false,
  invalid_output: false,
  render_failed: true,
  workflow_failed: false,
  backend_unavailable: true,
  deadline_exceeded: 'depends',
  worker_lost: false,
  upstream_submit_unconfirmed: 'depends',
  upstream_failed: false,
  content_moderated: false,
  upstream_result_expired: false,
  upstream_download_failed: 'depends',
  canceled: false,
  lease_lost: false,
  internal_error: true,
} as const satisfies Record<string, boolean | 'depends'>;

export type FailureCode = keyof typeof RETRIED;
export type Retried = (typeof RETRIED)[FailureCode];

/** The catalogue as data, for docs/errors.md's test and operators' tooling. */
export const FAILURE_CODES: ReadonlyArray<{ code: FailureCode; retried: Retried }> = Object.entries(RETRIED).map(
  ([code, retried]) => ({ code: code as FailureCode, retried }),
);

// Only this module holds it, so a TaskFailure cannot be made anywhere but in FAILURES below.
const MINT = Symbol('TaskFailure');

export class TaskFailure extends Error {
  constructor(
    token: typeof MINT,
    readonly code: FailureCode,
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    if (token !== MINT) throw new TypeError('TaskFailures are made by FAILURES only.');
  }
}

type FixedCode = { [C in FailureCode]: (typeof RETRIED)[C] extends boolean ? C : never }[FailureCode];
type DependingCode = Exclude<FailureCode, FixedCode>;

const fixed = (code: FixedCode, message: string) => new TaskFailure(MINT, code, message, RETRIED[code]);
const depending = (code: DependingCode, message: string, retryable: boolean) =>
  new TaskFailure(MINT, code, message, retryable);

/** An input a task fetches when it runs; the codes of each start with its name. */
export type InputKind = 'image' | 'video' | 'audio';

export const FAILURES = {
  canceled: () => fixed('canceled', 'The task was canceled.'),
  /** Never shown to a caller: the attempt's writes are refused, and another attempt (or the cancel) owns the task. */
  leaseLost: () => fixed('lease_lost', 'The attempt lost its lease and stopped.'),
  /**
   * Retried by default: a local render is simply tried again. Not retried where another attempt
   * could only pay again: a relay that canceled its upstream job at the deadline (docs/relays.md §3).
   */
  deadlineExceeded: (message = 'The backend did not finish within its time limit.', retryable = true) =>
    depending('deadline_exceeded', message, retryable),
  workerLost: () => fixed('worker_lost', 'The task was interrupted too many times and was not retried again.'),
  internalError: (message = 'The video could not be generated because of an internal error.') =>
    fixed('internal_error', message),

  inputUnreachable: (what: InputKind, reason: string) =>
    fixed(`${what}_unreachable`, `The ${what} URL could not be fetched by the server: ${reason}`),
  inputUnavailable: (what: InputKind, message: string) => fixed(`${what}_unavailable`, message),
  /** Bytes, not pixels (`image_too_large`): the URL's file is over what the server fetches. */
  inputTooLarge: (what: InputKind, limitBytes: number | undefined) => {
    const limit = limitBytes === undefined ? '' : ` of ${Math.floor(limitBytes / 1024 / 1024)} MiB`;
    const variable = { image: 'VIDGEN_FETCH_MAX_MB', video: 'VIDGEN_FETCH_VIDEO_MAX_MB', audio: undefined }[what];
    const set = variable ? `, which ${variable} sets` : ' for reference audio';
    return fixed('input_too_large', `The ${what} at the URL is larger than the server's limit${limit}${set}.`);
  },
  imageInvalid: (message: string) => fixed('image_invalid', message),
  imageTooLarge: (message: string) => fixed('image_too_large', message),
  videoInvalid: (message: string) => fixed('video_invalid', message),
  audioInvalid: (message: string) => fixed('audio_invalid', message),
  videoUnsupported: (message: string) => fixed('video_unsupported', message),
  editNotUnderstood: (message: string) => fixed('edit_not_understood', message),
  invalidInput: (message: string) => fixed('invalid_input', message),
  invalidOutput: (message: string) => fixed('invalid_output', message),

  renderFailed: (message: string) => fixed('render_failed', message),
  workflowFailed: (message: string) => fixed('workflow_failed', message),
  backendUnavailable: (message: string) => fixed('backend_unavailable', message),

  upstreamSubmitUnconfirmed: (message: string, retryable: boolean) =>
    depending('upstream_submit_unconfirmed', message, retryable),
  upstreamFailed: (message: string) => fixed('upstream_failed', message),
  contentModerated: (message: string) => fixed('content_moderated', message),
  upstreamResultExpired: (message: string) => fixed('upstream_result_expired', message),
  upstreamDownloadFailed: (message: string, retryable: boolean) =>
    depending('upstream_download_failed', message, retryable),
};
