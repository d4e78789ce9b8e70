import { APIConnectionError, APIError, SubmitOutcomeUnknown } from '@vidgen/client';

export interface ShownError {
  /** What the user reads; for a refusal, the server's own `error.message`. */
  message: string;
  /** The field the server named (`error.param`), if any. */
  param: string | null;
  /** `x-request-id`, to quote in a bug report. */
  requestId?: string;
}

/** Turns whatever an SDK call threw into words for the page. */
export function describeError(err: unknown): ShownError {
  if (err instanceof APIConnectionError) {
    return {
      message: `Could not reach the vidgen server (${err.message}) Check the connection and try again.`,
      param: null,
    };
  }
  if (err instanceof APIError)
    return { message: err.error?.message ?? err.message, param: err.param, requestId: err.requestId ?? undefined };
  // The SDK's own message explains what to do: look at the list before submitting again.
  if (err instanceof SubmitOutcomeUnknown) return { message: err.message, param: null };
  return { message: err instanceof Error ? err.message : String(err), param: null };
}
