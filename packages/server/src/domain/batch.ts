/** A batch's status, in OpenAI's words (docs/batch.md). */
export type BatchStatus =
  | 'validating'
  | 'failed'
  | 'in_progress'
  | 'finalizing'
  | 'completed'
  | 'expired'
  | 'cancelling'
  | 'cancelled';

/** How a batch ends, decided when it stops taking lines: the status it reaches once its files are written. */
export type BatchEnding = 'completed' | 'expired' | 'cancelled' | 'failed';

/** OpenAI's completion window: the only one offered. */
export const COMPLETION_WINDOW_MS = 24 * 3600 * 1000;

/** Why a whole batch failed, or a line was refused (OpenAI's `BatchError`). */
export interface BatchError {
  code: string;
  message: string;
  param: string | null;
  line: number | null;
}

export interface Batch {
  id: string;
  accountId: string;
  /** The API key that created it: its lines count towards that key's quota. */
  keyId: string | null;
  endpoint: string;
  inputFileId: string;
  completionWindow: string;
  status: BatchStatus;
  ending: BatchEnding | null;
  errors: BatchError[] | null;
  metadata: Record<string, string> | null;
  total: number;
  /** Lines taken so far, from the top of the file (queued or refused). */
  queued: number;
  completed: number;
  failed: number;
  costUsdTicks: number;
  outputFileId: string | null;
  errorFileId: string | null;
  /** Epoch milliseconds, null until reached. */
  createdAt: number;
  inProgressAt: number | null;
  finalizingAt: number | null;
  completedAt: number | null;
  failedAt: number | null;
  expiredAt: number | null;
  expiresAt: number;
  cancellingAt: number | null;
  cancelledAt: number | null;
}

/** What a refused line or a failed task is written to the error file with. */
export interface LineError {
  code: string;
  message: string;
  param?: string | null;
}

/** One line of a batch's input file, as its record keeps it. */
export interface BatchLine {
  line: number;
  /** `batch_req_…`: its id in the output or error file. */
  id: string;
  customId: string;
  requestId: string;
  taskId: string | null;
  outcome: 'succeeded' | 'failed' | null;
  /** A refused line's HTTP status. */
  statusCode: number | null;
  error: LineError | null;
  /** The answer frozen when the line ended: the finished task in its dialect, or the refusal's envelope. */
  body: Record<string, unknown> | null;
}
