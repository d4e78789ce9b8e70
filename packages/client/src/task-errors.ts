import { VidgenError } from './errors.ts';
import type { Family } from './types.ts';

/**
 * Errors of the client obligations (docs/service-spec.md §1): each keeps what the caller needs to carry on
 * later — the task id, or for an unknown submit the idempotency key and request fingerprint.
 */

/** A submit may or may not have created a task, and no lookup could tell. Do NOT resubmit blindly. */
export class SubmitOutcomeUnknown extends VidgenError {
  constructor(
    readonly idempotencyKey: string,
    readonly family: Family,
    readonly fingerprint: string,
    /** Unix milliseconds when the submit was first sent. */
    readonly submittedAt: number,
    readonly model: string,
    options?: { cause?: unknown },
  ) {
    super(
      `The submit (idempotency key ${idempotencyKey}) may or may not have created a task, and the server offers ` +
        `no way to look it up. ` +
        'Check the task list before submitting again; resubmit only with the same idempotency key.',
      options,
    );
  }
}

/** The maximum waiting time ran out; the task goes on on the server and can be waited for again. */
export class WaitTimeoutError extends VidgenError {
  constructor(
    readonly taskId: string,
    readonly family: Family,
    readonly lastStatus: string | undefined,
    readonly waitedMs: number,
  ) {
    super(
      `Task ${taskId} was still '${lastStatus ?? 'unknown'}' after waiting ${Math.round(waitedMs / 1000)} s; it ` +
        `keeps running on the server.`,
    );
  }
}

/** The task ended in failed (family A) or FAILURE (family B). */
export class TaskFailedError extends VidgenError {
  constructor(
    readonly taskId: string,
    readonly family: Family,
    readonly code: string | null,
    readonly serverMessage: string | null,
    readonly task: unknown,
  ) {
    super(`Task ${taskId} failed${code ? ` (${code})` : ''}: ${serverMessage ?? 'no reason given'}`);
  }
}

/** The result existed but is gone: family A `expired`, family B `expired: true`, or a 410 on download. */
export class ResultExpiredError extends VidgenError {
  constructor(
    readonly taskId: string | undefined,
    message?: string,
    options?: { cause?: unknown },
  ) {
    super(
      message ?? `The result of task ${taskId ?? '(unknown)'} has expired and can no longer be downloaded.`,
      options,
    );
  }
}

/** The task has no result yet (still pending, or it failed). */
export class TaskNotReadyError extends VidgenError {
  constructor(
    readonly taskId: string,
    readonly status: string,
  ) {
    super(`Task ${taskId} has no video to download (status '${status}').`);
  }
}

export type DownloadCheck = 'status' | 'content_type' | 'length' | 'signature' | 'range';

/** A download answered but is not a complete MP4; nothing was written at the target path. */
export class DownloadCheckError extends VidgenError {
  /** The transfer broke off (rather than the server sending something wrong); a later run may resume it. */
  readonly interrupted: boolean;

  constructor(
    readonly check: DownloadCheck,
    message: string,
    options?: { cause?: unknown; interrupted?: boolean },
  ) {
    super(`Download check failed (${check}): ${message}`, options);
    this.interrupted = options?.interrupted ?? false;
  }
}
