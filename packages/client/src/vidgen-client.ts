import { Transport, type FetchLike } from './core/transport.ts';
import { DEFAULT_BACKOFF, type BackoffOptions } from './core/backoff.ts';
import { submitTask, type SubmitContext, type SubmitRequest } from './submit/submit-task.ts';
import { waitFor, type WaitOptions } from './wait/wait-for.ts';
import { taskPath } from './wait/task-view.ts';
import { streamTask, type TaskStreamEvent, type TaskStreamOptions } from './wait/task-stream.ts';
import { readEventStream, type EventStreamOptions, type ServerSentEvent } from './core/event-stream.ts';
import type { JournalEntry, TaskJournal } from './journal/task-journal.ts';
import { accountOf, inScope, type JournalScope } from './journal/journal-scope.ts';
import { resumeJournal, type ResumeOptions, type ResumeResult } from './journal/resume-journal.ts';
import { Videos } from './resources/videos.ts';
import { VideoGenerations } from './resources/video-generations.ts';
import { Models } from './resources/models.ts';
import { Files } from './resources/files.ts';
import { Webhooks } from './resources/webhooks.ts';
import { Events } from './resources/events.ts';
import { Account } from './resources/account.ts';
import { Content } from './resources/content.ts';
import type { ClientCore } from './resources/client-core.ts';
import type { Created, Family, RequestOptions, TaskObject } from './types.ts';

export interface ClientOptions {
  /** Server root, e.g. `https://video.example.com` (a trailing `/v1` is accepted and dropped). */
  baseURL?: string;
  apiKey?: string;
  /** Milliseconds per request attempt. Default 60 000. */
  timeout?: number;
  /** Retries after the first attempt, for 408/409/429/5xx and connection errors. Default 2. */
  maxRetries?: number;
  /** Defaults to the global fetch. */
  fetch?: FetchLike;
  defaultHeaders?: Record<string, string>;
  /** Durable memory of submits; `FileJournal` from `@vidgen/client/node`. */
  journal?: TaskJournal;
  /** Poll intervals in ms when the server gives no hint. Default A 4 000, B 15 000 (docs/service-spec.md §8). */
  pollIntervals?: Partial<Record<Family, number>>;
  backoff?: Partial<BackoffOptions>;
  /** A Retry-After longer than this is not waited out. Default 60 000. */
  maxRetryAfterMs?: number;
}

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

/** The vidgen API client. Resources mirror both dialects; the four client obligations are built in. */
export class VidgenClient implements ClientCore {
  readonly transport: Transport;
  readonly journal: TaskJournal | undefined;
  readonly videos: Videos;
  readonly videoGenerations: VideoGenerations;
  readonly models: Models;
  readonly files: Files;
  readonly webhooks: Webhooks;
  readonly events: Events;
  readonly account: Account;
  readonly content: Content;
  readonly pollIntervals: Record<Family, number>;
  /**
   * What this client learned: once the server replays a create, retries with the same key are
   * known safe; once it shows it has no task streams, waits poll without trying one first.
   */
  readonly server: { idempotency: boolean; streams?: boolean } = { idempotency: false };
  private scope: Promise<JournalScope> | undefined;

  constructor(options: ClientOptions = {}) {
    const fetchImpl = options.fetch ?? globalThis.fetch?.bind(globalThis);
    if (!fetchImpl) throw new Error('No fetch available: pass `fetch` in the client options.');
    this.transport = new Transport({
      baseURL: normalizeBaseURL(options.baseURL ?? DEFAULT_BASE_URL),
      apiKey: options.apiKey,
      timeout: options.timeout ?? 60_000,
      maxRetries: options.maxRetries ?? 2,
      fetch: fetchImpl,
      defaultHeaders: options.defaultHeaders ?? {},
      backoff: { ...DEFAULT_BACKOFF, ...options.backoff },
      maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
    });
    this.journal = options.journal;
    this.pollIntervals = { A: options.pollIntervals?.A ?? 4_000, B: options.pollIntervals?.B ?? 15_000 };
    this.videos = new Videos(this);
    this.videoGenerations = new VideoGenerations(this);
    this.models = new Models(this);
    this.files = new Files(this);
    this.webhooks = new Webhooks(this);
    this.events = new Events(this);
    this.account = new Account(this);
    this.content = new Content(this);
  }

  get baseURL(): string {
    return this.transport.options.baseURL;
  }

  /**
   * Low-level create with every safeguard; resources call this. Returns the key and whether the answer was replayed.
   */
  submit<T>(req: SubmitRequest): Promise<Created<T>> {
    const ctx: SubmitContext = {
      transport: this.transport,
      journal: this.journal,
      server: this.server,
      now: Date.now,
      scope: () => this.journalScope(),
    };
    return submitTask<T>(ctx, req);
  }

  /** Polls a task of either family to its end, within `maxWaitMs`. */
  waitFor<F extends Family>(id: string, opts: WaitOptions<F>): Promise<TaskObject<F>> {
    return waitFor(this.waitContext(), id, opts);
  }

  /**
   * A task's states as they happen, from its event stream (docs/streams.md), ending after the
   * final one; StreamNotOfferedError where the server has no streams.
   */
  streamTask<F extends Family>(
    family: F,
    id: string,
    opts?: TaskStreamOptions,
  ): AsyncGenerator<TaskStreamEvent<TaskObject<F>>> {
    return streamTask(this.transport, family, id, opts);
  }

  /**
   * The events of any `text/event-stream` route of this server (`path` under the base URL, such
   * as the OpenAI dialect's `/v1/videos/video_…/events`), reconnecting with `Last-Event-ID`;
   * `isLast` says which event ends it (by default the stream ends when the server says nothing
   * more will come).
   */
  streamEvents(
    path: string,
    opts: EventStreamOptions & { isLast?: (event: ServerSentEvent) => boolean } = {},
  ): AsyncGenerator<ServerSentEvent> {
    return readEventStream(this.transport, { ...opts, path, isLast: opts.isLast ?? (() => false) });
  }

  /** One poll of a task of either family. */
  async retrieveTask<F extends Family>(family: F, id: string, opts: RequestOptions = {}): Promise<TaskObject<F>> {
    return (await this.transport.request<TaskObject<F>>({ method: 'GET', path: taskPath(family, id), ...opts })).data;
  }

  /**
   * Continues every unfinished journal entry: reconciles submits without an answer, polls
   * running tasks to their end and, when `onSucceeded` is given, hands finished ones over.
   */
  async resume(opts: ResumeOptions = {}): Promise<ResumeResult[]> {
    if (!this.journal) throw new Error('resume() needs a journal: pass `journal` in the client options.');
    return resumeJournal(this, this.journal, opts);
  }

  /** The server and account this client's journal entries belong to. */
  journalScope(): Promise<JournalScope> {
    this.scope ??= accountOf(this.transport.options.apiKey).then((account) => ({ server: this.baseURL, account }));
    return this.scope;
  }

  /** This client's journal entries: those of its server and key, oldest first. */
  async journalEntries(): Promise<JournalEntry[]> {
    if (!this.journal) return [];
    const scope = await this.journalScope();
    return (await this.journal.list()).filter((e) => inScope(e, scope));
  }

  private waitContext() {
    return {
      transport: this.transport,
      intervals: this.pollIntervals,
      journal: this.journal,
      journalEntries: () => this.journalEntries(),
      now: Date.now,
      server: this.server,
    };
  }
}

/** Paths carry `/v1`, so a base that already ends in it (as OpenAI-style bases do) is trimmed. */
export function normalizeBaseURL(raw: string): string {
  const trimmed = raw.trim().replace(/\/+$/, '');
  return trimmed.replace(/\/v1$/, '');
}
