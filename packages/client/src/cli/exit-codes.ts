import { APIError, APIUserAbortError } from '../errors.ts';
import {
  DownloadCheckError,
  ResultExpiredError,
  SubmitOutcomeUnknown,
  TaskFailedError,
  WaitTimeoutError,
} from '../task-errors.ts';

/** The `vidgen` exit codes; scripts may rely on them, so they never change meaning. */
export const EXIT = {
  ok: 0,
  /** Usage errors and anything not listed below (network, server errors). */
  other: 1,
  /** The server refused the request (400, 404, 409, 413, 415, 422). */
  badRequest: 2,
  /** Missing, unknown or revoked key, or no permission (401, 403). */
  auth: 3,
  taskFailed: 4,
  /** The maximum waiting time ran out; the task goes on (`vidgen wait <id>` or `vidgen resume`). */
  waitTimeout: 5,
  /** The submit may or may not have created a task; check `vidgen tasks` before submitting again. */
  submitUnknown: 6,
  /** The download was not a complete MP4; nothing was written at the output path. */
  downloadCheck: 7,
  resultExpired: 8,
  /** Interrupted by Ctrl-C (128 + SIGINT), as shells expect. */
  interrupted: 130,
} as const;

/** A mistake in how `vidgen` was called, or a precondition the CLI checks itself. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.other,
  ) {
    super(message);
  }
}

export function exitCodeFor(err: unknown): number {
  if (err instanceof UsageError) return err.exitCode;
  if (err instanceof TaskFailedError) return EXIT.taskFailed;
  if (err instanceof WaitTimeoutError) return EXIT.waitTimeout;
  if (err instanceof SubmitOutcomeUnknown) return EXIT.submitUnknown;
  if (err instanceof DownloadCheckError) return EXIT.downloadCheck;
  if (err instanceof ResultExpiredError) return EXIT.resultExpired;
  if (err instanceof APIUserAbortError) return EXIT.interrupted;
  if (err instanceof APIError && err.status !== undefined) {
    if (err.status === 401 || err.status === 403) return EXIT.auth;
    if (err.status === 410) return EXIT.resultExpired;
    if (err.status >= 400 && err.status < 500 && err.status !== 408 && err.status !== 429) return EXIT.badRequest;
  }
  return EXIT.other;
}
