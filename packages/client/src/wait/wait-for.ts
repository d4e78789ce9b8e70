import type { Transport } from '../core/transport.ts';
import { isRetryable } from '../core/transport.ts';
import { backoffDelay, parseRetryAfter, sleep } from '../core/backoff.ts';
import { APIError, APIUserAbortError } from '../errors.ts';
import { StreamNotOfferedError } from '../core/event-stream.ts';
import { ResultExpiredError, TaskFailedError, WaitTimeoutError } from '../task-errors.ts';
import type { JournalEntry, JournalState, TaskJournal } from '../journal/task-journal.ts';
import type { Family, TaskObject } from '../types.ts';
import { taskPath, viewOf, type TaskPhase, type TaskView } from './task-view.ts';
import { streamTask } from './task-stream.ts';

export interface WaitOptions<F extends Family = Family> {
  family: F;
  /** The maximum total waiting time (docs/service-spec.md §1 obligation 3). Default 20 minutes. */
  maxWaitMs?: number;
  /** Pause between polls. By default the server's Retry-After hint, else the family's interval. */
  intervalMs?: number;
  /** Ask the server to hold each poll up to this many seconds (`?wait=`, at most 60; 0 = never). Default 30. */
  longPollSeconds?: number;
  /**
   * Follow the task's event stream where the server offers one (docs/streams.md), polling only
   * when it does not or the stream fails. Default true.
   */
  stream?: boolean;
  /** Called with every answer; `poll` says how the next poll goes (for a countdown or a "live" mark). */
  onProgress?: (view: TaskView, task: TaskObject<F>, poll: PollPlan) => void;
  signal?: AbortSignal;
}

export interface WaitContext {
  transport: Transport;
  /** The journal entries of this client's server and key (another server's task may share an id). */
  journalEntries?: () => Promise<JournalEntry[]>;
  /** Recommended poll intervals (docs/service-spec.md §8): A 3–5 s, B about 15 s. */
  intervals: Record<Family, number>;
  journal?: TaskJournal;
  now: () => number;
  /** What the client learned: `streams: false` once the server showed it has no task streams (polls go first then). */
  server?: { streams?: boolean };
}

/** How the wait goes on after an answer. */
export interface PollPlan {
  /**
   * The server holds polls (it said so with `X-Vidgen-Long-Poll`, or an answer was held): the next poll goes out at
   * once.
   */
  longPoll: boolean;
  /** Milliseconds until the next poll is sent (0 once the task has ended). */
  nextPollInMs: number;
  /** The answer came by the task's event stream: the next one comes when the task changes, with no poll. */
  stream?: boolean;
}

export const DEFAULT_MAX_WAIT_MS = 20 * 60_000;
/**
 * Sent by a vidgen server on every answer to a `?wait=` poll: its value is the hold it granted, in
 * milliseconds. Such a server answers early only on a state change or a progress step worth
 * reporting, so a quick answer is news, not proof that it cannot hold (docs/long-poll.md).
 */
export const LONG_POLL_HEADER = 'x-vidgen-long-poll';
/**
 * A server that holds polls answers on change, so asking again soon is what long-polling is for; a second apart keeps a
 * waiting task to one request a second.
 */
const LONG_POLL_GAP_MS = 1000;
/** Against a server that declares long-polling, at most this often: bounds a misbehaving one that answers at once. */
const DECLARED_MIN_CYCLE_MS = 250;

/**
 * Polls a task to its end: done/failed/expired (A) or SUCCESS/FAILURE (B). Transient errors
 * do not end the wait; only the maximum waiting time, the signal or a final state do.
 */
export async function waitFor<F extends Family>(
  ctx: WaitContext,
  id: string,
  opts: WaitOptions<F>,
): Promise<TaskObject<F>> {
  const started = ctx.now();
  const deadline = started + (opts.maxWaitMs ?? DEFAULT_MAX_WAIT_MS);
  const longPoll = Math.min(60, Math.max(0, Math.floor(opts.longPollSeconds ?? 30)));
  const journal = await JournalTracker.find(ctx, id);
  if (opts.stream !== false && ctx.server?.streams !== false) {
    const streamed = await followStream(ctx, id, opts, { started, deadline }, journal);
    if (streamed) return finish(id, streamed.view, streamed.task);
  }
  const pacer = new PollPacer(opts.intervalMs ?? ctx.intervals[opts.family], opts.intervalMs !== undefined);
  let failures = 0;
  let last: TaskView | undefined;
  for (;;) {
    const remaining = deadline - ctx.now();
    if (remaining <= 0) throw new WaitTimeoutError(id, opts.family, last?.status, ctx.now() - started);
    const wait = Math.min(longPoll, Math.floor(remaining / 1000));
    const sentAt = ctx.now();
    let answer: { data: TaskObject<F>; response: Response };
    try {
      answer = await ctx.transport.send<TaskObject<F>>({
        method: 'GET',
        path: taskPath(opts.family, id),
        query: { wait: wait > 0 ? wait : undefined },
        timeout: ctx.transport.options.timeout + wait * 1000,
        signal: opts.signal,
      });
      failures = 0;
    } catch (err) {
      if (!isRetryable(err)) throw err;
      const retryAfter = err instanceof APIError ? parseRetryAfter(err.headers) : undefined;
      await sleep(
        Math.min(backoffDelay(++failures, undefined, retryAfter), Math.max(0, deadline - ctx.now())),
        opts.signal,
      );
      continue;
    }
    last = viewOf(opts.family, answer.data);
    const declared = wait > 0 && answer.response.headers.has(LONG_POLL_HEADER);
    const plan =
      last.phase === 'pending'
        ? pacer.plan(ctx.now() - sentAt, wait, parseRetryAfter(answer.response.headers), declared)
        : { longPoll: declared, nextPollInMs: 0 };
    opts.onProgress?.(last, answer.data, plan);
    await journal?.track(last);
    if (last.phase !== 'pending') return finish(id, last, answer.data);
    await sleep(Math.min(plan.nextPollInMs, Math.max(0, deadline - ctx.now())), opts.signal);
  }
}

/**
 * Decides the pause before the next poll. A server that honours `?wait=` answers on change
 * or at the deadline, so polling again soon is right; one that ignores it must get the
 * recommended interval. A server that sends `X-Vidgen-Long-Poll` says it holds, whatever an
 * answer's timing. Without the header, a held answer proves support; one quick answer may just
 * be a change (queued → running), so it earns a single early probe before falling back.
 */
class PollPacer {
  private support: 'unknown' | 'probing' | 'yes' | 'no' = 'unknown';

  constructor(
    private readonly intervalMs: number,
    private readonly explicit: boolean,
  ) {}

  plan(elapsedMs: number, waitSeconds: number, hintMs: number | undefined, declared: boolean): PollPlan {
    if (declared) {
      this.support = 'yes';
      const cycle = this.explicit ? Math.min(DECLARED_MIN_CYCLE_MS, this.intervalMs) : DECLARED_MIN_CYCLE_MS;
      return { longPoll: true, nextPollInMs: Math.max(0, cycle - elapsedMs) };
    }
    // A normal poll takes milliseconds; one that took a second or more was held by the server.
    if (waitSeconds > 0 && elapsedMs >= Math.min(waitSeconds * 800, 1000)) this.support = 'yes';
    else if (waitSeconds > 0 && this.support === 'unknown') this.support = 'probing';
    else if (this.support === 'probing') this.support = 'no';
    if (this.support === 'yes' || this.support === 'probing') {
      return {
        longPoll: true,
        nextPollInMs: this.explicit ? Math.min(LONG_POLL_GAP_MS, this.intervalMs) : LONG_POLL_GAP_MS,
      };
    }
    // An interval the caller chose wins over the server's hint; otherwise the hint, then the family's default.
    const interval = this.explicit ? this.intervalMs : (hintMs ?? this.intervalMs);
    return { longPoll: false, nextPollInMs: Math.max(0, interval - elapsedMs) };
  }
}

/**
 * Follows the task's event stream to its final state (undefined: polling takes over). Streams are
 * a faster road to the same answers, never the authority: whatever makes one fail (no such route,
 * the account's bound, a server that keeps dropping it) hands the wait to polling, which meets the
 * errors that matter (an unknown task, a revoked key) and deals with them as it always did.
 */
async function followStream<F extends Family>(
  ctx: WaitContext,
  id: string,
  opts: WaitOptions<F>,
  { started, deadline }: { started: number; deadline: number },
  journal: JournalTracker | undefined,
): Promise<{ view: TaskView; task: TaskObject<F> } | undefined> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(opts.signal?.reason);
  if (opts.signal?.aborted) onAbort();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  let timedOut = false;
  const timer = setTimeout(
    () => {
      timedOut = true;
      controller.abort();
    },
    Math.max(0, deadline - ctx.now()),
  );
  let last: TaskView | undefined;
  try {
    for await (const { task } of streamTask(ctx.transport, opts.family, id, { signal: controller.signal })) {
      last = viewOf(opts.family, task);
      opts.onProgress?.(last, task, { longPoll: true, nextPollInMs: 0, stream: true });
      await journal?.track(last);
      if (last.phase !== 'pending') return { view: last, task };
    }
    return undefined;
  } catch (err) {
    if (timedOut) throw new WaitTimeoutError(id, opts.family, last?.status, ctx.now() - started);
    if (err instanceof APIUserAbortError || opts.signal?.aborted) throw err;
    if (err instanceof StreamNotOfferedError && ctx.server) ctx.server.streams = false;
    return undefined;
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onAbort);
  }
}

function finish<T>(id: string, view: TaskView, task: T): T {
  if (view.phase === 'failed')
    throw new TaskFailedError(id, view.family, view.error?.code ?? null, view.error?.message ?? null, task);
  if (view.phase === 'expired') throw new ResultExpiredError(id);
  return task;
}

const STATE_OF: Record<TaskPhase, JournalState> = {
  pending: 'submitted',
  succeeded: 'succeeded',
  failed: 'failed',
  expired: 'expired',
};

/** Keeps the journal entry of a waited-for task current, writing only when the status changes. */
class JournalTracker {
  private lastStatus: string | undefined;

  private constructor(
    private readonly journal: TaskJournal,
    private readonly entry: JournalEntry,
    private readonly now: () => number,
  ) {
    this.lastStatus = entry.status;
  }

  static async find(ctx: WaitContext, taskId: string): Promise<JournalTracker | undefined> {
    if (!ctx.journal) return undefined;
    const entries = ctx.journalEntries ? await ctx.journalEntries() : await ctx.journal.list();
    const entry = entries.find((e) => e.taskId === taskId);
    return entry ? new JournalTracker(ctx.journal, entry, ctx.now) : undefined;
  }

  async track(view: TaskView): Promise<void> {
    if (view.status === this.lastStatus && view.phase === 'pending') return;
    this.lastStatus = view.status;
    // A downloaded entry stays downloaded; only its status text is refreshed.
    const state = this.entry.state === 'downloaded' ? 'downloaded' : STATE_OF[view.phase];
    const error = view.error ? { code: view.error.code, message: view.error.message } : undefined;
    await this.journal.update(this.entry.idempotencyKey, {
      state,
      status: view.status,
      progress: view.progress,
      error,
      updatedAt: this.now(),
    });
  }
}
