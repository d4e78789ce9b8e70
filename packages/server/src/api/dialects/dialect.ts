import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ContentVariant, Static, TObject, TSchema } from '@vidgen/protocol';
import type { TaskService } from '../../engine/task-service.ts';
import type { SubmitInput } from '../../engine/task-service.ts';
import type { Task, TaskKind, TaskStatus } from '../../domain/task.ts';
import type { ApiError, FieldOffer, InvalidField } from '../../errors.ts';
import type { ForeignFields } from './foreign-fields.ts';

/**
 * How a route appears in the OpenAPI document: a stable `operationId` (SDK generators name methods after it) and one
 * line.
 */
export interface Operation {
  operationId: string;
  summary: string;
  description?: string;
}

/** One create endpoint of a dialect: its path, its body and answer schemas and the wire → domain mapping. */
export interface SubmitRoute<Body extends TSchema = TSchema> extends Operation {
  path: string;
  kind: TaskKind;
  body: Body;
  /**
   * Schema of the create answer. Answers are serialized from it, which drops every field it
   * does not declare: it must name all that `toAnswer` writes.
   */
  answer: TSchema;
  /** The body in domain words; throws a 4xx naming the wire field for rules only the wire has. */
  toInput(body: Static<Body>): Omit<SubmitInput, 'family'>;
  /** The create answer, always the one the task got when it was created (replays included). */
  toAnswer(task: Task): Record<string, unknown>;
  /**
   * On a path another dialect's submit also serves: a schema only this dialect's bodies match.
   * The one route then checks and maps each body as the dialect whose claim it matches
   * (the route without a claim takes the rest).
   */
  claim?: TSchema;
  /**
   * Also claims a body that does not match `claim`, from the request's headers (a client's
   * User-Agent). Such a body is then checked against this route's `body` in the handler.
   */
  claimsHeaders?(headers: IncomingHttpHeaders): boolean;
  /** Also accepts `multipart/form-data` (see api/form-body.ts for how a form becomes a body). */
  multipart?: boolean;
}

/** A dialect whose wire ids are not the task ids (`video_…`): the mapping both ways. */
export interface WireIds {
  fromTask(taskId: string): string;
  /** Undefined for an id that is not one of this dialect's. */
  toTask(wireId: string): string | undefined;
}

/** What a dialect's own extra routes get to work with. */
export interface DialectRouteDeps {
  tasks: TaskService;
  clock: () => number;
  /** The links an answer to this request carries, signed for its caller (as the poll's are). */
  context(request: FastifyRequest): WireContext;
}

/** What a dialect needs from the request to write a task: links are signed per caller. */
export interface WireContext {
  /** Absolute, signed link to the task's video, or to one of its images (call only for a succeeded task). */
  signedContentUrl(task: Task, variant?: ContentVariant): string;
  /**
   * Absolute, signed link to one of the account's files (`storage_options.public_url`), valid for
   * `seconds` (the signer's default when absent) and never past `fileExpiresAt`. Absent where no
   * link may be minted (frozen event bodies hold none).
   */
  signedFileUrl?(fileId: string, seconds: number | undefined, fileExpiresAt: number | null): SignedLink;
}

export interface SignedLink {
  url: string;
  /** Unix seconds. */
  expiresAt: number;
}

/**
 * An API dialect: everything that differs between family A (xAI style), family B (new-api style)
 * and any later one. `api/task-routes.ts` registers submit, poll, list and cancel from it; the
 * engine below never sees a wire field name, a path or a status word.
 */
export interface Dialect {
  /** Tag stored with each task it creates (one upper-case letter); catalog models name the family that serves them. */
  family: string;
  /**
   * Name of the task id in the wire (`request_id`, `task_id`): the poll path's parameter and the list's `last_id`
   * source.
   */
  idField: string;
  submits: SubmitRoute[];
  /**
   * Paths; poll and cancel hold the task id as the parameter named `idField` (`/v1/videos/:request_id`).
   * Without `list`, the dialect lists its tasks in `routes`.
   */
  paths: { poll: string; cancel: string; list?: string };
  /**
   * The poll's `statusCodes` are the HTTP codes `pollStatus` answers with, each described for the document.
   * `events` names the task stream (`<poll>/events`, docs/streams.md); without it, a name is made from the poll's.
   */
  operations: {
    poll: Operation & { statusCodes: Record<number, string> };
    cancel: Operation;
    list?: Operation;
    events?: Operation;
  };
  /**
   * A gateway's shape (OpenRouter's): its creates may use every model of the catalog, whichever
   * dialect's endpoint also serves it; its tasks keep this dialect's family and answer in its shape.
   */
  servesEveryModel?: boolean;
  /** Set when the wire ids are not the task ids (then `owns` is set too). */
  wireIds?: WireIds;
  /** Set when the dialect answers only for some tasks (those it created, not deleted): others are 404 to it. */
  owns?(task: Task): boolean;
  /**
   * For paths another dialect also serves (`GET /v1/videos/{id}`): whether this request is this
   * dialect's, decided from its method, URL and headers before the body is read. A dialect
   * with claims has its poll, cancel and list routes taken only by the requests it claims.
   */
  claims?(request: { method?: string; url?: string; headers: IncomingHttpHeaders }): boolean;
  /** Routes beyond submit, poll, cancel and list (registered after them). */
  routes?(app: FastifyInstance, deps: DialectRouteDeps): void;
  /** Groups the dialect's operations in the OpenAPI document. */
  tag: string;
  /**
   * What the dialect answers with: `task` (poll, cancel, and listing entries) and `error` (every
   * 4xx/5xx of its routes). Answers are serialized from these schemas, which drops every field
   * they do not declare: they must name all that `toWire` and `errorBody` write.
   */
  schemas: { task: TObject; error: TSchema };
  /** `?status=` words of the listing, each with the internal states it covers. */
  statusWords: Record<string, readonly TaskStatus[]>;
  /** The dialect's name for a field the engine names in domain words (`aspectRatio` → `aspect_ratio`). */
  fieldName(field: string, body: unknown): string;
  /** Other dialects' names for the video's length, shape and resolution: checked against the model's video. */
  foreignFields?: ForeignFields;
  /**
   * The message of a refused value in the dialect's own words, where its field carries the value
   * differently from the engine (OpenAI's `size` '1920x1080' is an aspect ratio and a resolution);
   * undefined keeps the engine's message.
   */
  describeOffer?(error: InvalidField & { offer: FieldOffer }, name: string, body: unknown): string | undefined;
  toWire(task: Task, ctx: WireContext, queuePosition?: number): Record<string, unknown>;
  /** HTTP status of a poll answer and, while unfinished, how long a client should wait before the next. */
  pollStatus(task: Task): { code: number; retryAfterSeconds?: number; headers?: Record<string, string> };
  /** Seconds a client should wait when its Idempotency-Key is still in flight (409). */
  inFlightRetryAfterSeconds: number;
  errorBody(error: ApiError): Record<string, unknown>;
}

/** A submit route with its body type checked against its schema. */
export function submitRoute<Body extends TSchema>(route: SubmitRoute<Body>): SubmitRoute {
  return route as unknown as SubmitRoute;
}

/** The OpenAI-style error envelope, which both xAI and new-api clients parse. */
export function openAiErrorBody(error: ApiError): Record<string, unknown> {
  return { error: { message: error.message, type: error.type, code: error.code, param: error.param } };
}

/**
 * `has_audio` of a succeeded task, for every dialect's poll answer: the output check held the file
 * to exactly the sound the task asked for (docs/architecture.md, invariant 3), so what was asked
 * is what was delivered. Tasks from before sound existed say nothing.
 */
export function hasAudio(task: Task): { has_audio?: boolean } {
  return task.params.audio === undefined ? {} : { has_audio: task.params.audio };
}
