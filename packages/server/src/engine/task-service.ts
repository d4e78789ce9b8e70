import type { Account } from '../store/account-store.ts';
import type { TaskStore } from '../store/task-store.ts';
import type { BlobStore } from '../blobs/blob-store.ts';
import { outputSize, reportedModelName, type ModelCatalog, type ModelEntry } from '../catalog/model-catalog.ts';
import { Conflict, InvalidField, ModelServedElsewhere, NotFound, Unprocessable } from '../errors.ts';
import {
  FINISHED_STATUSES,
  taskInputs,
  type ApiFamily,
  type Task,
  type TaskKind,
  type TaskParams,
  type ServiceTier,
  DEFAULT_ALLOWED_TIERS,
} from '../domain/task.ts';
import { IdempotencyKeyTaken, type IdempotencyClaim, type TaskQuery } from '../store/task-store.ts';
import type { TaskEvents } from '../domain/task-events.ts';
import type { InputRequest, MediaInputs } from './inputs/media-inputs.ts';
import type { VideoInput, VideoInputs } from './inputs/video-inputs.ts';
import { checkInputs, hasRole } from './inputs/input-rules.ts';
import { checkAspectRatio, checkDuration, checkResolution, checkSound, offeredList } from './offer-checks.ts';
import { uuidv7 } from '../domain/ids.ts';
import type { DeliveryRequest } from '../domain/delivery.ts';
import { checkDelivery } from './delivery-rules.ts';
import { LanePositions } from './lane-positions.ts';
import { FinishedTasks } from './finished-tasks.ts';
import { deleteResult } from './video-variants.ts';
import { taskAttributes } from './task-spans.ts';
import { noTracing, storedTraceContext, type Tracing } from '../observability/tracing/tracing.ts';

export type { InputRequest, VideoInput };

export interface SubmitInput {
  /** The tag of the dialect submitting: only models of that family are served through it (but see `everyModel`). */
  family: ApiFamily;
  /**
   * Set by a gateway's shape (OpenRouter's): every model of the catalog is served through it,
   * whichever family's endpoint also serves it. The task still keeps the submitting family, so
   * every answer about it is in that shape.
   */
  everyModel?: boolean;
  kind: TaskKind;
  model: string;
  prompt: string;
  /** What the video is composed from, each with its role, in the order the request gave them. */
  inputs: InputRequest[];
  /** Seconds; families whose models fix the duration leave it out. */
  duration?: number;
  aspectRatio?: string;
  /** Output resolution ("480p"), where the model offers a choice. */
  resolution?: string;
  seed?: number;
  /** Edits and extensions: the input video (`duration` is then the seconds an extension adds). */
  video?: VideoInput;
  /** A per-request webhook: this task's events go there (as well as to the account's endpoints). */
  callbackUrl?: string;
  /** Sound asked for; absent: the model's default. */
  audio?: boolean;
  /** Where the finished video also goes (docs/storage.md). */
  delivery?: DeliveryRequest;
  /** How it is claimed and priced; absent: `default`. A batch's lines are `batch`. */
  serviceTier?: ServiceTier;
  /** The batch this submit is a line of (set by the batch service, never by a dialect). */
  batchId?: string;
  /**
   * A generation's video, once planned, must agree with what the caller also said in words the
   * dialect does not speak (api/dialects/foreign-fields.ts): it throws the refusal.
   */
  agrees?: VideoAgreement;
}

/** The video a generation will make, in domain words. */
export interface PlannedVideo {
  model: string;
  duration: number;
  aspectRatio: string;
  resolution: string;
  width: number;
  height: number;
}

/** Throws when the video disagrees; `offering` lists the models here that render what was asked. */
export type VideoAgreement = (
  video: PlannedVideo,
  offering: (want: Partial<Pick<PlannedVideo, 'duration' | 'aspectRatio' | 'resolution'>>) => string[],
) => void;

/** The caller's Idempotency-Key and the fingerprint of the request it came with. */
export interface Idempotency {
  key: string;
  requestHash: string;
}

export interface Submitted {
  task: Task;
  /** True when an earlier request with the same Idempotency-Key created the task. */
  replayed: boolean;
}

/**
 * A check of a submit's content made before anything is fetched, held or written (the operator's
 * guardrails). Limits that must count tasks atomically with the insert (per-key rate, active-task
 * caps, credit holds, quotas) run in the insert's transaction instead (store/sql/transition-effects.ts).
 */
export interface SubmitCheck {
  check(account: Account, input: { model: string; prompt: string }): Promise<void>;
}

export type ListQuery = Omit<TaskQuery, 'accountId' | 'family' | 'limit'> & { limit: number };

export const MAX_PROMPT_LENGTH = 4000;
/**
 * A running submit renews its reservation every IDEMPOTENCY_RENEW_MS; one not renewed for
 * this long belongs to a request whose process died (a crash between reserving and inserting),
 * and a retry takes it over. Was 60 s of 409s; now a retry after a crash succeeds within seconds.
 * A slow submit that is overtaken anyway cannot create a second task: the key binds once.
 */
const IDEMPOTENCY_STALE_MS = 5_000;
const IDEMPOTENCY_RENEW_MS = 1_000;
/** How often a long-poll re-reads the task, for changes made by workers in other processes. */
const LONG_POLL_RECHECK_MS = 1000;

/** Submit and read tasks. Every business rule of a submit lives here, not in the dialects. */
export class TaskService {
  private readonly finished = new FinishedTasks();
  private readonly positions: LanePositions;

  constructor(
    private readonly deps: {
      tasks: TaskStore;
      blobs: BlobStore;
      catalog: ModelCatalog;
      /** The inputs of generations: checked and stored at submit, removed once the task ends. */
      inputs: MediaInputs;
      videos: VideoInputs;
      events: TaskEvents;
      clock: () => number;
      /**
       * Checks a per-request callback URL as an endpoint's is checked (public addresses only),
       * throwing a 4xx for the field `callbackUrl`; without it a callback URL is refused.
       */
      checkCallbackUrl?: (url: string) => Promise<string>;
      /** Whether upload URLs may name private addresses (VIDGEN_ALLOW_PRIVATE_URLS); absent, no. */
      allowPrivateUrls?: boolean;
      /** Guardrails on the prompt; absent, none. */
      contentCheck?: SubmitCheck;
      /** Spans of submits; the trace a task is enqueued in is stored with it for the worker. Absent, none. */
      tracing?: Tracing;
    },
  ) {
    this.positions = new LanePositions((backend) => deps.tasks.queueSnapshot(backend), deps.clock);
  }

  /** The models this account may use. */
  modelsFor(account: Account): ModelEntry[] {
    return this.deps.catalog.list().filter((m) => isEntitled(account, m));
  }

  /** The family that serves a model (id or alias) this account may use; undefined for any other name. */
  familyOf(account: Account, modelId: string): ApiFamily | undefined {
    const model = this.deps.catalog.find(modelId);
    return model && isEntitled(account, model) ? model.family : undefined;
  }

  /**
   * Creates a task, or with an Idempotency-Key returns the task that key already created
   * (invariant 2, docs/architecture.md: same key and body replay; other body 422; still being created 409).
   */
  async submit(account: Account, input: SubmitInput, idempotency?: Idempotency, keyId?: string): Promise<Submitted> {
    if (!idempotency) return { task: await this.create(account, input, undefined, keyId), replayed: false };
    const claim: IdempotencyClaim = { accountId: account.id, ...idempotency };
    const now = this.deps.clock();
    const reservation = await this.deps.tasks.reserveIdempotencyKey(claim, now, now - IDEMPOTENCY_STALE_MS);
    if (reservation.kind !== 'reserved' && reservation.requestHash !== idempotency.requestHash) {
      throw new Unprocessable(
        'idempotency_key_reused',
        'This Idempotency-Key was already used with a different request body.',
        'Idempotency-Key',
      );
    }
    if (reservation.kind === 'in_flight') {
      throw new Conflict(
        'idempotency_in_flight',
        'A request with this Idempotency-Key is still being processed; retry shortly.',
      );
    }
    if (reservation.kind === 'existing')
      return { task: await this.get(account.id, reservation.taskId), replayed: true };
    const renewal = setInterval(
      () => void this.deps.tasks.renewIdempotencyKey(claim, this.deps.clock()).catch(() => undefined),
      IDEMPOTENCY_RENEW_MS,
    );
    renewal.unref();
    try {
      return { task: await this.create(account, input, idempotency.key, keyId), replayed: false };
    } catch (err) {
      if (err instanceof IdempotencyKeyTaken) {
        throw new Conflict(
          'idempotency_in_flight',
          'A request with this Idempotency-Key is still being processed; retry shortly.',
        );
      }
      await this.deps.tasks.releaseIdempotencyKey(claim).catch(() => undefined);
      throw err;
    } finally {
      clearInterval(renewal);
    }
  }

  /**
   * Cancels a queued or running task (`onlyQueued`: a queued one; a batch's expiry lets running lines
   * finish). A running attempt notices at once in this process, or at
   * its next write elsewhere (the write is refused), and its output is discarded.
   */
  async cancel(accountId: string, id: string, onlyQueued = false): Promise<Task> {
    const task = await this.get(accountId, id);
    const canceled = FINISHED_STATUSES.includes(task.status)
      ? undefined
      : await this.deps.tasks.cancel(id, this.deps.clock(), onlyQueued);
    if (!canceled) {
      const now = await this.get(accountId, id);
      throw new Conflict(
        'task_not_cancelable',
        `The task has already ended (${now.status === 'succeeded' ? 'done' : now.status}) and cannot be canceled.`,
      );
    }
    this.deps.events.taskCanceled(id);
    await this.deps.inputs.discard(taskInputs(canceled.params));
    return canceled;
  }

  /**
   * Ends a finished task's life now, as retention does at its end: its video, poster and sprite
   * sheet are deleted, a succeeded task becomes expired, and the ledger keeps its record.
   * Other processes that remember the task see the change once their copy's expiry comes.
   */
  async endNow(accountId: string, id: string): Promise<Task> {
    const task = await this.get(accountId, id);
    if (!FINISHED_STATUSES.includes(task.status)) {
      throw new Conflict('task_not_finished', 'The task has not finished yet: cancel it, or wait until it ends.');
    }
    const ended = await this.deps.tasks.endNow(id, this.deps.clock());
    this.finished.forget(id);
    if (ended?.result) await deleteResult(this.deps.blobs, ended.result.blobKey);
    return ended ?? task;
  }

  /** Where a queued task stands in its lane (an estimate under fair claiming), else undefined. */
  async queuePosition(task: Task): Promise<number | undefined> {
    return task.status === 'queued' ? this.positions.positionOf(task) : undefined;
  }

  /**
   * One page of the account's tasks of one family (or of every family: undefined), newest first
   * unless the query says otherwise.
   */
  async list(
    accountId: string,
    family: ApiFamily | undefined,
    query: ListQuery,
  ): Promise<{ tasks: Task[]; hasMore: boolean }> {
    // Tasks keep the catalog id: an alias filters by the model it names.
    const model = query.model === undefined ? undefined : (this.deps.catalog.find(query.model)?.id ?? query.model);
    const rows = await this.deps.tasks.list({ ...query, model, accountId, family, limit: query.limit + 1 });
    return { tasks: rows.slice(0, query.limit), hasMore: rows.length > query.limit };
  }

  /**
   * The task as soon as its state or progress differs from what the caller last saw, or at
   * the deadline (long-poll). Finished tasks answer at once.
   */
  async waitForChange(accountId: string, id: string, waitMs: number, signal?: AbortSignal): Promise<Task> {
    // Only a state change or a progress step this large ends a hold early, so a task answers a
    // holding client about a dozen times at most: a hold that ended on every tick would look like
    // no long-poll at all to clients, which would then poll on an interval instead.
    const progressStep = 10;
    const seen = await this.get(accountId, id);
    const deadline = this.deps.clock() + waitMs;
    let current = seen;
    while (!FINISHED_STATUSES.includes(current.status) && !signal?.aborted) {
      const remaining = deadline - this.deps.clock();
      if (remaining <= 0) break;
      await this.deps.events.nextChange(id, Math.min(remaining, LONG_POLL_RECHECK_MS), signal);
      current = await this.get(accountId, id);
      if (current.status !== seen.status || current.progress - seen.progress >= progressStep) break;
    }
    return current;
  }

  private async create(account: Account, input: SubmitInput, idempotencyKey?: string, keyId?: string): Promise<Task> {
    const model = this.resolveModel(account, input);
    const serviceTier = checkTier(account, input.serviceTier);
    const prompt = checkPrompt(input.prompt);
    // A replay returned above: it is neither checked, counted nor held again.
    await this.deps.contentCheck?.check(account, { model: model.id, prompt });
    const callbackUrl = input.callbackUrl === undefined ? undefined : await this.checkCallback(input.callbackUrl);
    const delivery = checkDelivery(account, input.delivery, this.deps.allowPrivateUrls ?? false);
    // The task's time is its id's: listings since a time then walk the id index (store/sql-task-store).
    const createdAt = this.deps.clock();
    const id = uuidv7(createdAt);
    const names = { requestedModel: input.model, reportedModel: reportedModelName(model, input.model) };
    const audio = checkSound(model, input.audio);
    const params = {
      ...(input.kind === 'generate'
        ? await this.generationParams(account, id, model, input, { prompt, audio })
        : await this.variantParams(account, model, input, prompt)),
      ...names,
      ...(callbackUrl === undefined ? {} : { callbackUrl }),
      audio,
      ...(delivery === undefined ? {} : { delivery }),
    };
    try {
      const newTask = {
        id,
        accountId: account.id,
        family: input.family,
        kind: input.kind,
        model: model.id,
        backend: model.backend,
        params,
        createdAt,
        idempotencyKey,
        keyId,
        serviceTier,
        batchId: input.batchId,
      };
      const tracing = this.deps.tracing ?? noTracing;
      // The enqueue is the span the worker's claim continues, in whatever process it runs.
      const task = tracing.enabled
        ? await tracing.withSpan('task.enqueue', { kind: 'producer', attributes: taskAttributes(newTask) }, (span) =>
            this.deps.tasks.insert({ ...newTask, traceContext: storedTraceContext(span.headers()) }),
          )
        : await this.deps.tasks.insert(newTask);
      this.wake(model.backend);
      return task;
    } catch (err) {
      await this.deps.inputs.discard(params.inputs ?? []);
      throw err;
    }
  }

  /**
   * Tells this process's workers a task is queued. Only a hint (the row is the truth, and workers
   * poll), so a listener that throws never turns a stored create into an error: a client without
   * an idempotency key would submit it again and pay twice.
   */
  private wake(backend: string): void {
    try {
      this.deps.events.taskQueued(backend);
    } catch {
      // The next poll of the queue finds the task.
    }
  }

  private async checkCallback(url: string): Promise<string> {
    if (!this.deps.checkCallbackUrl) {
      throw new InvalidField(
        'callbackUrl',
        'invalid_webhook_url',
        (name) => `\`${name}\` is not offered by this server.`,
      );
    }
    return this.deps.checkCallbackUrl(url);
  }

  private async generationParams(
    account: Account,
    id: string,
    model: ModelEntry,
    input: SubmitInput,
    { prompt, audio }: { prompt: string; audio: boolean },
  ): Promise<TaskParams> {
    const aspectRatio = checkAspectRatio(model, input.aspectRatio);
    const duration = checkDuration(model, input.duration);
    const shortSide = checkResolution(model, input.resolution);
    const size = outputSize(shortSide, aspectRatio);
    input.agrees?.({ model: model.id, duration, aspectRatio, resolution: `${shortSide}p`, ...size }, (want) =>
      this.deps.catalog
        .list()
        .filter(
          (m) =>
            servedThrough(m, input) &&
            isEntitled(account, m) &&
            m.capabilities.generate &&
            (want.duration === undefined || m.durations.includes(want.duration)) &&
            (want.aspectRatio === undefined || m.aspectRatios.includes(want.aspectRatio)) &&
            (want.resolution === undefined ||
              m.resolutions.includes(want.resolution) ||
              `${m.shortSide}p` === want.resolution),
        )
        .map((m) => m.id),
    );
    if (model.requiresImage && !hasRole(input.inputs, 'first_frame')) {
      throw new InvalidField(
        'images',
        'image_required',
        (name) => `Model '${model.id}' animates a first frame: \`${name}\` is required.`,
      );
    }
    checkInputs(model, input.inputs, { duration, audio, fps: model.fps });
    // The one list of inputs, first frame included (domain/task.ts `taskInputs`).
    const inputs = await this.deps.inputs.accept(account, id, input.inputs);
    return {
      prompt,
      inputs,
      duration,
      aspectRatio,
      ...size,
      fps: model.fps,
      seed: input.seed,
    };
  }

  /**
   * Edits and extensions: the size, rate and length come from the input video, which the worker
   * probes; here only what a 4xx can name is checked (the source exists, is the caller's, is done).
   */
  private async variantParams(
    account: Account,
    model: ModelEntry,
    input: SubmitInput,
    prompt: string,
  ): Promise<TaskParams> {
    if (!input.video) throw new InvalidField('video', 'missing_field', (name) => `\`${name}\` is required.`);
    if (input.inputs.length > 0) {
      throw new InvalidField(
        'inputs[0]',
        'unsupported_input',
        (name) => `\`${name}\`: an edit or extension takes its input video only.`,
      );
    }
    const duration = input.kind === 'extend' ? checkDuration(model, input.duration) : 0;
    const video = await this.deps.videos.accept(account, input.video);
    return {
      prompt,
      inputs: [],
      duration,
      aspectRatio: '',
      width: 0,
      height: 0,
      fps: model.fps,
      seed: input.seed,
      video,
    };
  }

  /**
   * The task, when it is finished, remembered and this account's: a poll answered without a
   * promise or a read (undefined: ask `get`, which also tells a missing task from another's).
   */
  finishedTask(accountId: string, id: string): Task | undefined {
    const task = this.finished.get(id, this.deps.clock());
    return task?.accountId === accountId ? task : undefined;
  }

  /** A task of this account; another account's task is indistinguishable from a missing one. */
  async get(accountId: string, id: string): Promise<Task> {
    const now = this.deps.clock();
    let task = this.finished.get(id, now);
    if (!task) {
      task = await this.deps.tasks.get(id);
      if (task) this.finished.remember(task, now);
    }
    if (!task || task.accountId !== accountId) throw new NotFound('task', id);
    return task;
  }

  /** Throws ModelServedElsewhere when `modelId` names a model this account may use on another family's endpoint. */
  checkServedHere(account: Account, modelId: unknown, family: SubmitInput['family']): void {
    const model = typeof modelId === 'string' ? this.deps.catalog.find(modelId) : undefined;
    if (model && isEntitled(account, model) && model.family !== family)
      throw new ModelServedElsewhere(model.id, model.family);
  }

  private resolveModel(account: Account, input: SubmitInput): ModelEntry {
    const model = this.deps.catalog.find(input.model);
    // What this account may use at this endpoint for this kind of task: what a refusal offers instead.
    const usable = (kind: TaskKind) =>
      this.deps.catalog
        .list()
        .filter((m) => servedThrough(m, input) && isEntitled(account, m) && m.capabilities[kind])
        .map((m) => m.id);
    if (!model || !isEntitled(account, model)) {
      const offered = usable(input.kind);
      throw new InvalidField(
        'model',
        'model_not_found',
        () =>
          `The model '${input.model}' does not exist or is not available to this account; ` +
          `here it may use ${offeredList(offered) || 'none'} (GET /v1/models).`,
        { sent: input.model, offered },
      );
    }
    if (!servedThrough(model, input)) throw new ModelServedElsewhere(model.id, model.family);
    if (!model.capabilities[input.kind]) {
      const what = { generate: 'generations', edit: 'edits', extend: 'extensions' }[input.kind];
      const offered = usable(input.kind);
      throw new InvalidField(
        'model',
        'model_not_supported',
        () => `Model '${model.id}' does not offer ${what}; models that do: ${offeredList(offered) || 'none'}.`,
        { sent: model.id, offered },
      );
    }
    return model;
  }
}

/** Whether a create may use this model: its own family's, or any model through a gateway's shape. */
function servedThrough(model: ModelEntry, input: Pick<SubmitInput, 'family' | 'everyModel'>): boolean {
  return input.everyModel === true || model.family === input.family;
}

function isEntitled(account: Account, model: ModelEntry): boolean {
  return account.models === null || account.models.includes(model.id);
}

/** The tier asked for, if the account may use it (a batch's lines always may). */
function checkTier(account: Account, tier: ServiceTier | undefined): ServiceTier {
  if (tier === undefined || tier === 'default' || tier === 'batch') return tier ?? 'default';
  const allowed = account.serviceTiers ?? DEFAULT_ALLOWED_TIERS;
  if (!allowed.includes(tier)) {
    throw new InvalidField(
      'serviceTier',
      'service_tier_not_allowed',
      (name) => `\`${name}\` '${tier}' is not available to this account; it may use ${allowed.join(', ')}.`,
    );
  }
  return tier;
}

function checkPrompt(prompt: string): string {
  const trimmed = prompt.trim();
  if (!trimmed) throw new InvalidField('prompt', 'invalid_prompt', (name) => `\`${name}\` must not be empty.`);
  if (trimmed.length > MAX_PROMPT_LENGTH) {
    throw new InvalidField(
      'prompt',
      'invalid_prompt',
      (name) => `\`${name}\` must be at most ${MAX_PROMPT_LENGTH} characters.`,
    );
  }
  return trimmed;
}
