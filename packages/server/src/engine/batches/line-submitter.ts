import type { Account } from '../../store/account-store.ts';
import type { LineError } from '../../domain/batch.ts';

/** What became of one line handed to its endpoint: a queued task, or the refusal a submit would have got. */
export type LineOutcome =
  | { kind: 'queued'; taskId: string }
  | { kind: 'refused'; status: number; error: LineError; body: Record<string, unknown> };

export interface LineToSubmit {
  account: Account;
  keyId: string | null;
  endpoint: string;
  body: Record<string, unknown>;
  batchId: string;
  /** The line's number in the file: with the batch, what makes its submit happen once however often it is retried. */
  line: number;
}

/**
 * A batch's line submitted as its endpoint's create route submits a body: checked by the same
 * dialect rules, then queued in the batch lane. Implemented by the API layer, which owns the
 * dialects (api/batches/batch-line-submitter.ts); the engine never sees a wire field name.
 * Throws for what a retry may cure (a storage fault, a 5xx): the line is then taken again.
 */
export interface LineSubmitter {
  /** The endpoints a batch may name. */
  readonly endpoints: readonly string[];
  submit(line: LineToSubmit): Promise<LineOutcome>;
}
