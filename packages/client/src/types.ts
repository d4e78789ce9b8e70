/**
 * Wire types. Every shape comes from @vidgen/protocol, the schemas the server validates and
 * answers with: type-only imports, erased at run time, so the SDK keeps zero runtime dependencies.
 */
import type {
  FamilyACreateBody,
  FamilyATask as FamilyATaskWire,
  FamilyBCreateBody,
  FamilyBTask as FamilyBTaskWire,
  OpenAiVideoCreateBody,
  OpenRouterVideoCreateBody,
} from '@vidgen/protocol';

export type {
  FamilyACreateBody,
  FamilyAEditBody,
  FamilyAExtensionBody,
  FamilyACreateResponse,
  FamilyBCreateBody,
  FamilyBCreateResponse,
  ModelObject,
  ModelList,
  FileObject,
  FileDeleted,
  TaskError,
  // A listing entry (poll object + `created_at`, `idempotency_key`) and the page envelope around it.
  Listed,
  ListEnvelope as ListResponse,
  ContentVariant,
  WebhookEventBody as WebhookEvent,
  BalanceLowData,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
  WebhookDelivery,
  WebhookRecovery,
  EventObject,
  CallbackFields,
  AccountObject,
  UsageReport,
  // The inputs a video is composed from (docs/inputs.md), as each dialect names them.
  FamilyAImage,
  FamilyAKeyframe,
  FamilyAReferenceAudio,
  OpenAiVideoCreateBody,
  OpenAiImageReference,
  OpenRouterVideoCreateBody,
  OpenRouterFrameImage,
  OpenRouterInputReference,
  ModelInputs,
} from '@vidgen/protocol';

/**
 * A family A input image besides the first frame (`last_frame`, each of `reference_images`, a
 * keyframe's `image`): exactly one of `url` (http(s) or a data URI) or `file_id` (`files.create`).
 */
export type FamilyAInputImage = NonNullable<FamilyACreateBody['last_frame']>;

/**
 * Every input of a family A generation (`videos.generate`): `image` is the first frame, then
 * `last_frame`, up to 4 `keyframes` at `timestamp_s` (after 0, before `duration`, each on a frame of
 * its own), up to 7 `reference_images` and up to 3 `reference_audios` (with `generate_audio: true`).
 * Which of them a model takes is its `inputs` in `models.list()`.
 */
export type FamilyAInputs = Pick<
  FamilyACreateBody,
  'image' | 'last_frame' | 'keyframes' | 'reference_images' | 'reference_audios'
>;

/**
 * Every input of a family B generation (`videoGenerations.create`), each a URL or data URI string:
 * `image` or `images[0]` is the first frame, `images[1..]` are reference images, `last_frame` the last.
 */
export type FamilyBInputs = Pick<FamilyBCreateBody, 'image' | 'images' | 'last_frame'>;

/** The input of an OpenAI Videos create (`POST /v1/videos`): `input_reference`, the first frame. */
export type OpenAiVideoInputs = Pick<OpenAiVideoCreateBody, 'input_reference'>;

/**
 * The inputs of OpenRouter's shape of that create: `frame_images` (first and last frame) and
 * `input_references` (images, and videos or sound where the model takes them).
 */
export type OpenRouterVideoInputs = Pick<OpenRouterVideoCreateBody, 'frame_images' | 'input_references'>;

/*
 * Tasks as unions on `status`, so that a check of the status is all a caller needs: after
 * `task.status === 'done'`, `task.video` is there; after `task.status === 'SUCCESS' && !task.expired`,
 * `task.result_url` is. The fields are the protocol's; only which of them each status carries is added,
 * as the server writes them (api/dialects/family-a.ts and family-b.ts in packages/server).
 */
type FamilyAFields = Omit<FamilyATaskWire, 'status' | 'video'>;

/** A family A task that succeeded: `video` (signed link, seconds, poster) is always there. */
export type FamilyADoneTask = FamilyAFields & { status: 'done'; video: NonNullable<FamilyATaskWire['video']> };

/** A family A task still pending (queued or running), failed (canceled included) or expired: no video. */
export type FamilyANotDoneTask = FamilyAFields & {
  status: Exclude<FamilyATaskWire['status'], 'done'>;
  video?: undefined;
};

/** A family A task (`GET /v1/videos/{request_id}`): narrow on `status` to reach `video`. */
export type FamilyATask = FamilyADoneTask | FamilyANotDoneTask;

type FamilyBFields = Omit<FamilyBTaskWire, 'status' | 'result_url' | 'expired'>;

/** A family B task that succeeded and whose video is still kept: `result_url` is always there. */
export type FamilyBSucceededTask = FamilyBFields & { status: 'SUCCESS'; result_url: string; expired?: undefined };

/** A family B success whose video was deleted at the end of retention: family B has no word for it but `expired`. */
export type FamilyBExpiredTask = FamilyBFields & { status: 'SUCCESS'; expired: true; result_url?: undefined };

/** A family B task queued, in progress or failed (canceled included): no video. */
export type FamilyBNotDoneTask = FamilyBFields & {
  status: Exclude<FamilyBTaskWire['status'], 'SUCCESS'>;
  result_url?: undefined;
  expired?: undefined;
};

/**
 * A family B task (`GET /v1/video/generations/{task_id}`): narrow on `status` (and `expired`) to reach
 * `result_url`.
 */
export type FamilyBTask = FamilyBSucceededTask | FamilyBExpiredTask | FamilyBNotDoneTask;

/** The name earlier versions of the SDK used for a family B task. */
export type FamilyBTaskObject = FamilyBTask;

/**
 * A: `/v1/videos/*` (request_id, pending/done/failed/expired); B: `/v1/video/generations` (task_id,
 * queued/IN_PROGRESS/SUCCESS/FAILURE).
 */
export type Family = 'A' | 'B';

export type TaskObject<F extends Family> = F extends 'A' ? FamilyATask : FamilyBTask;

export interface ListParams {
  /** 1–100, default 20. */
  limit?: number;
  /** A task id: the page after it. */
  after?: string;
  /** In the family's own words (`pending`… or `queued`…). */
  status?: string;
  model?: string;
  /** Unix seconds. */
  created_after?: number;
  idempotency_key?: string;
}

/** Per-call options, as in openai-node. */
export interface RequestOptions {
  /** Milliseconds for one attempt. */
  timeout?: number;
  maxRetries?: number;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

export interface CreateOptions extends RequestOptions {
  /** Reuse a key to continue an earlier submit; by default a new one is made once per create. */
  idempotencyKey?: string;
  /** Where the result should be saved; kept in the journal so `resume` can finish the download. */
  downloadTo?: string;
}

/** What a create returns: the server's answer plus what identifies the submit. */
export interface Created<T> {
  data: T;
  idempotencyKey: string;
  /** The server answered with `Idempotent-Replayed: true`: this is the first submit's answer again. */
  replayed: boolean;
  /** The answer came from looking the task up after an ambiguous failure, not from the create itself. */
  recovered: boolean;
}
