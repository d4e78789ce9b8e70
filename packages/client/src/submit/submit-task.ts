import { APIError, APIUserAbortError, ConflictError, UnprocessableEntityError } from '../errors.ts';
import { isRetryable, wasUndelivered, type Transport } from '../core/transport.ts';
import { sleep } from '../core/backoff.ts';
import { newIdempotencyKey, requestFingerprint } from '../core/fingerprint.ts';
import { SubmitOutcomeUnknown } from '../task-errors.ts';
import type { JournalEntry, JournalState, TaskJournal, TaskKind } from '../journal/task-journal.ts';
import { taskIdOf } from '../wait/task-view.ts';
import type { CreateOptions, Created, Family } from '../types.ts';
import { findByIdempotencyKey } from './find-by-idempotency-key.ts';
import type { JournalScope } from '../journal/journal-scope.ts';

export interface SubmitContext {
  transport: Transport;
  journal?: TaskJournal;
  /** What this client learned about the server; shared by all its submits. */
  server: { idempotency: boolean };
  now: () => number;
  /** Whose entry a new submit writes (server and account). */
  scope: () => Promise<JournalScope>;
}

export interface SubmitRequest {
  family: Family;
  kind: TaskKind;
  path: string;
  body: { model: string } & object;
  options?: CreateOptions;
}

/**
 * Sends a create so that it is never charged twice (docs/service-spec.md §1 obligation 2, invariant 2,
 * docs/architecture.md):
 * one idempotency key for all attempts, journaled before the first byte leaves, and after an
 * ambiguous failure a lookup before anything is sent again.
 */
export async function submitTask<T>(ctx: SubmitContext, req: SubmitRequest): Promise<Created<T>> {
  const submission = await Submission.start(ctx, req);
  try {
    const created = await submission.run<T>();
    const taskId = taskIdOf(req.family, created.data);
    await ctx.journal?.update(submission.key, {
      state: 'submitted',
      taskId,
      status: (created.data as { status?: string }).status,
      updatedAt: ctx.now(),
    });
    return created;
  } catch (err) {
    const state = submission.stateAfter(err);
    if (state) await ctx.journal?.update(submission.key, { state, error: errorSummary(err), updatedAt: ctx.now() });
    throw err;
  }
}

class Submission {
  /** Some attempt may have reached the server without us seeing its answer. */
  private ambiguous = false;
  /** A lookup proved the server has no task with this key. */
  private provedAbsent = false;

  private constructor(
    private readonly ctx: SubmitContext,
    private readonly req: SubmitRequest,
    private readonly entry: JournalEntry,
  ) {}

  get key(): string {
    return this.entry.idempotencyKey;
  }

  static async start(ctx: SubmitContext, req: SubmitRequest): Promise<Submission> {
    const key = req.options?.idempotencyKey ?? newIdempotencyKey();
    const fingerprint = await requestFingerprint(req.body);
    const known = req.options?.idempotencyKey ? await ctx.journal?.get(key) : undefined;
    const now = ctx.now();
    const entry: JournalEntry = known ?? {
      idempotencyKey: key,
      family: req.family,
      kind: req.kind,
      path: req.path,
      model: req.body.model,
      fingerprint,
      submittedAt: now,
      updatedAt: now,
      state: 'submitting',
      body: req.body,
      downloadTo: req.options?.downloadTo,
      ...(ctx.journal ? await ctx.scope() : {}),
    };
    // Written before the request is sent: a crash mid-submit still leaves something to reconcile.
    if (!known) await ctx.journal?.record(entry);
    return new Submission(ctx, req, entry);
  }

  async run<T>(): Promise<Created<T>> {
    const { transport } = this.ctx;
    const opts = this.req.options ?? {};
    const maxRetries = opts.maxRetries ?? transport.options.maxRetries;
    for (let retry = 1; ; retry++) {
      try {
        const { data, response } = await transport.send<T>({
          method: 'POST',
          path: this.req.path,
          body: this.req.body,
          timeout: opts.timeout,
          signal: opts.signal,
          headers: { ...opts.headers, 'idempotency-key': this.key },
        });
        const replayed = response.headers.get('idempotent-replayed') === 'true';
        if (replayed) this.ctx.server.idempotency = true;
        return { data, idempotencyKey: this.key, replayed, recovered: false };
      } catch (err) {
        this.learnFrom(err);
        if (!isRetryable(err)) throw err;
        const delay = transport.retryDelay(err, retry, maxRetries);
        if (delay === undefined) return this.settle<T>(err);
        if (this.ambiguous && !this.ctx.server.idempotency) {
          const found = await this.reconcile<T>(err);
          if (found) return found;
        }
        await sleep(delay, opts.signal);
      }
    }
  }

  private learnFrom(err: unknown): void {
    const inFlight = err instanceof ConflictError && err.code === 'idempotency_in_flight';
    const reused = err instanceof UnprocessableEntityError && err.code === 'idempotency_key_reused';
    if (inFlight || reused) this.ctx.server.idempotency = true;
    if (isRetryable(err) && !wasUndelivered(err) && !inFlight) this.ambiguous = true;
  }

  /** Retries are spent. Unambiguous failures stand; otherwise the listing decides. */
  private async settle<T>(lastError: unknown): Promise<Created<T>> {
    if (!this.ambiguous) throw lastError;
    const found = await this.reconcile<T>(lastError);
    if (found) return found;
    throw lastError;
  }

  /**
   * Returns the task if the server has it; resolves undefined when it provably has not; throws when nobody can tell.
   */
  private async reconcile<T>(cause: unknown): Promise<Created<T> | undefined> {
    const { family, model, fingerprint, submittedAt } = this.entry;
    const lookup = await findByIdempotencyKey(this.ctx.transport, {
      family,
      idempotencyKey: this.key,
      model,
      submittedAt,
      signal: this.req.options?.signal,
    });
    if (lookup.kind === 'found')
      return {
        data: createAnswerFrom(family, lookup.task) as T,
        idempotencyKey: this.key,
        replayed: false,
        recovered: true,
      };
    if (lookup.kind === 'absent') {
      this.provedAbsent = true;
      return undefined;
    }
    throw new SubmitOutcomeUnknown(this.key, family, fingerprint, submittedAt, model, {
      cause: lookup.kind === 'unavailable' ? lookup.cause : cause,
    });
  }

  /** The journal state a failed submit leaves, or undefined to keep 'submitting' for a later reconcile. */
  stateAfter(err: unknown): JournalState | undefined {
    if (err instanceof SubmitOutcomeUnknown) return 'unknown';
    // An abort can land after the request left: keep 'submitting' so a resume reconciles it.
    if (err instanceof APIUserAbortError) return undefined;
    if (err instanceof APIError && !isRetryable(err) && err.status !== undefined)
      return this.ambiguous ? 'unknown' : 'rejected';
    if (!this.ambiguous || this.provedAbsent) return 'not_received';
    return undefined;
  }
}

/** The create answer a lookup stands in for. */
function createAnswerFrom(family: Family, task: Record<string, unknown>): unknown {
  if (family === 'A') return { request_id: task.request_id };
  return { task_id: task.task_id, status: task.status, seconds: task.seconds };
}

function errorSummary(err: unknown): { code: string | null; message: string } {
  if (err instanceof APIError) return { code: err.code, message: err.message };
  return { code: null, message: err instanceof Error ? err.message : String(err) };
}
