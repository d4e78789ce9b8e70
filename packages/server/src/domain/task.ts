import type { DeliveryOutcome, DeliveryRequest } from './delivery.ts';
import type { MediaRef, TaskInput } from './task-inputs.ts';

/** The engine's view of a task. Dialects map it to their own words; the engine never knows which one created it. */
export type TaskStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'canceled' | 'expired';
export const FINISHED_STATUSES: readonly TaskStatus[] = ['succeeded', 'failed', 'canceled', 'expired'];

/**
 * The tag of the API dialect a task was created through ("A", "B"): opaque to the engine, which
 * uses it only to serve a model through its own dialect and to list a dialect's own tasks.
 */
export type ApiFamily = string;
export type TaskKind = 'generate' | 'edit' | 'extend';

/**
 * How soon a task is claimed and what it costs: `priority` first at the catalog's priority ratio,
 * `default`, then `flex` and the lines of a batch (`batch`) at the batch ratio, which hold at most a
 * share of a lane's slots while anything else waits (store/sql/fair-claim.ts).
 */
export type ServiceTier = 'priority' | 'default' | 'flex' | 'batch';
export const SERVICE_TIERS: readonly ServiceTier[] = ['priority', 'default', 'flex', 'batch'];
/** The tiers a submit may name (batch lines are made by a batch, never asked for). */
export const REQUESTABLE_TIERS: readonly ServiceTier[] = ['priority', 'default', 'flex'];
/** An account may use these unless its operator says otherwise. */
export const DEFAULT_ALLOWED_TIERS: readonly ServiceTier[] = ['default', 'flex'];

/** The claim order of a tier: lower first; flex and batch lines share the last one. */
export function claimRankOf(tier: ServiceTier): number {
  return tier === 'priority' ? 0 : tier === 'default' ? 1 : 2;
}
/** The claim rank of flex and batch lines, which a lane's share bounds while others wait. */
export const LOW_CLAIM_RANK = 2;

/** Where an input image comes from. Inline data URIs are stored as blobs at submit. */
export type ImageRef = MediaRef;

/**
 * Where the input video of an edit or extension comes from. Checked at submit (the file or task
 * belongs to the account, the task is done); fetched and probed by the worker when the task runs.
 */
export type VideoRef =
  | { kind: 'url'; url: string }
  | { kind: 'file'; fileId: string }
  /** `seconds`, `width`, `height`: the source task's output, where known at submit. */
  | { kind: 'task'; taskId: string; seconds?: number; width?: number; height?: number };

export interface TaskParams {
  prompt: string;
  /** The first frame, on tasks written before `inputs` existed (read them through `taskInputs`). */
  images?: ImageRef[];
  /** Every input the video is composed from, each with its role (domain/task-inputs.ts). */
  inputs?: TaskInput[];
  /**
   * Seconds of output for a generation; for an extension the seconds it adds to the input video;
   * 0 for an edit, whose output keeps the input's length.
   */
  duration: number;
  /** For edits and extensions the size comes from the input video: '' and 0 here. */
  aspectRatio: string;
  width: number;
  height: number;
  fps: number;
  seed?: number;
  /** The model name the client sent (an id or an alias); absent on tasks created before it was kept. */
  requestedModel?: string;
  /** The model name poll answers report (catalog/model-catalog.ts `reportedModelName`). */
  reportedModel?: string;
  /** Edits and extensions: the input video. */
  video?: VideoRef;
  /** A per-request webhook: where this task's own events are sent, checked like an endpoint's URL at submit. */
  callbackUrl?: string;
  /**
   * Whether the output carries sound: what the request asked, else the model's default (always
   * true for a model whose sound is `always`). Fixed at submit, so the output check and the price
   * follow it; a succeeded task delivered exactly this (the check refuses anything else). Absent on
   * tasks created before sound existed, whose outputs are not checked for it.
   */
  audio?: boolean;
  /** Where the finished video also goes: the caller's upload URL, the account's files (domain/delivery.ts). */
  delivery?: DeliveryRequest;
}

export interface TaskResult {
  blobKey: string;
  bytes: number;
  etag: string;
  /** Length of the verified output, as measured; absent where the store does not keep it. */
  durationSeconds?: number;
  /**
   * What an upstream reported charging for this task (xAI's `usage.cost_in_usd_ticks`), for
   * relays that learn it: stored with the result so an operator sees the margin per task.
   */
  upstreamCostUsdTicks?: number;
  /** What became of the delivery the task asked for; absent when it asked for none. */
  delivery?: DeliveryOutcome;
}

/** What a settled task cost (invariant 7, docs/architecture.md): integer USD ticks, 1 tick = 10⁻¹⁰ USD. */
export interface TaskUsage {
  costUsdTicks: number;
  upstreamCostUsdTicks?: number;
}

/**
 * Seconds of a task's video: measured when known, else what the request fixed (a generation's
 * duration; an extension's added seconds on top of a source task's known length).
 */
export function outputSeconds(task: Pick<Task, 'kind' | 'params' | 'result'>): number {
  if (task.result?.durationSeconds !== undefined) return task.result.durationSeconds;
  if (task.kind === 'generate') return task.params.duration;
  const source = task.params.video?.kind === 'task' ? (task.params.video.seconds ?? 0) : 0;
  return source + task.params.duration;
}

/**
 * Width and height of a task's video where known without probing it: a generation's are fixed
 * at submit; an edit or extension of a task keeps its source's. Undefined otherwise.
 */
export function outputDimensions(task: Pick<Task, 'params'>): { width: number; height: number } | undefined {
  const { width, height, video } = task.params;
  if (width > 0 && height > 0) return { width, height };
  if (video?.kind === 'task' && video.width && video.height) return { width: video.width, height: video.height };
  return undefined;
}

/** A task's inputs: its `inputs` list, or for a task written before it, its first frame. */
export function taskInputs(params: Pick<TaskParams, 'images' | 'inputs'>): TaskInput[] {
  if (params.inputs) return params.inputs;
  return (params.images ?? []).slice(0, 1).map((ref) => ({ role: 'first_frame', ref }));
}

export interface TaskErrorInfo {
  code: string;
  message: string;
}

export interface Task {
  id: string;
  accountId: string;
  family: ApiFamily;
  kind: TaskKind;
  model: string;
  backend: string;
  status: TaskStatus;
  progress: number;
  params: TaskParams;
  error: TaskErrorInfo | null;
  result: TaskResult | null;
  attempts: number;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  /** When a succeeded task's result is deleted and the task becomes expired. */
  expiresAt: number | null;
  /**
   * When its owner deleted it (OpenAI Videos `DELETE`); null otherwise. A deleted task is gone for a
   * reason of its own: its answers say so, unlike an expired one's.
   */
  deletedAt?: number | null;
  /** The Idempotency-Key the task was created with, if any. */
  idempotencyKey: string | null;
  /**
   * Raised by one with every change of `status` or `progress`, by whichever process makes it: a
   * point in the task's life that any process can compare, whatever its clock (the event ids of
   * docs/streams.md).
   */
  revision: number;
  /** Set once the task's price is settled (or 0 when it ended without a result); null before. */
  usage?: TaskUsage | null;
  /** Its claim order and price (tasks written before tiers existed are `default`). */
  serviceTier: ServiceTier;
  /** The batch whose line it is; null for a task submitted on its own. */
  batchId: string | null;
}

export type { Lease } from './lease.ts';
