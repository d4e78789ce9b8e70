/**
 * What one job asks of the upstream: which of our models it is, its aspect ratio, the channels
 * that may take it (in priority order), and the input images as data URIs. Decided once per
 * attempt, before anything is sent, so a job no channel can take fails at once and costs nothing.
 */
import { createHash } from 'node:crypto';
import { ASPECT_RATIOS } from '@vidgen/protocol';
import type { TaskKind } from '../../domain/task.ts';
import { jobInputs, type GenerationJob } from '../generator.ts';
import { countInputs, dialectTakes, takesInputs } from './channel-inputs.ts';
import { allInputs, dataUri, payloadInputs, videoDataUri, type PayloadInputs } from './payload-inputs.ts';
import type { RelayBackendConfig, RelayChannelConfig } from './relay-config.ts';
import type { SubmitPayload } from './relay-dialects.ts';
import { relayFailures } from './relay-failures.ts';
import type { ChannelOverride } from './channel-health.ts';

/** A job as the relay reads it: `model` is our catalog id, when the engine passes it. */
export type RelayJob = GenerationJob;

export interface RelayPlan {
  model: string;
  ratio: string;
  candidates: RelayChannelConfig[];
  images: string[];
  /** The job's other inputs, as the payload carries them (relay-dialect-spec.ts). */
  inputs: PayloadInputs;
  /** Edits and extensions: the input video as a data URI. */
  video?: string;
}

/**
 * What a channel can be sent. Only xAI itself takes edits and extensions the way the relay sends
 * them: `POST /v1/videos/edits` and `/v1/videos/extensions` with the input inline as
 * `video.url = data:video/mp4;base64,…` (xai-org/xai-sdk-ts `src/resources/videos.ts` edit/extend,
 * `src/porcelain.ts` inlineVideoInput: "The API accepts only MP4 source videos"). A vidgen
 * upstream reads only http(s) URLs, uploads and its own tasks there, new-api, fal and Replicate
 * have no such routes; they stay generation-only.
 */
export function channelKinds(channel: RelayChannelConfig): readonly TaskKind[] {
  // An OpenAI-shape server that offers edits and extensions takes the input as an uploaded file.
  const edits =
    (channel.dialect === 'A' && channel.upstream === 'xai') || (channel.dialect === 'openai' && channel.edits);
  return edits ? ['generate', 'edit', 'extend'] : ['generate'];
}

export async function planRelayRequest(
  job: RelayJob,
  config: RelayBackendConfig,
  overrides: Map<string, ChannelOverride> = new Map(),
): Promise<RelayPlan> {
  const model = modelOf(job, config);
  const ratio = ratioOf(job.width, job.height);
  // An edit's shape and length are its input's: a channel's ratios and durations describe what it
  // generates. An extension's duration is the seconds it adds, which the channel may limit.
  const shaped = job.kind === 'generate';
  // Only a channel that takes every input the task has (channel-inputs.ts): an input is never dropped.
  const counts = countInputs(allInputs(job).map((input) => input.role));
  const fitting = config.channels.filter(
    (c) =>
      c.models[model] !== undefined &&
      channelKinds(c).includes(job.kind) &&
      takesInputs(c.inputs, counts) &&
      dialectTakes(c.dialect, counts) &&
      (!shaped || !c.aspectRatios || c.aspectRatios.includes(ratio)) &&
      (job.kind === 'edit' || !c.durations || c.durations.includes(job.duration)),
  );
  const candidates = orderChannels(
    fitting.filter((c) => overrides.get(c.id)?.enabled !== false),
    job.taskId,
    overrides,
  );
  if (candidates.length === 0) throw relayFailures.noChannel();
  const video = job.kind !== 'generate' && job.video ? await videoDataUri(job.video.path) : undefined;
  const images = await Promise.all(jobInputs(job, 'first_frame').map((input) => dataUri(input.path)));
  return { model, ratio, candidates, images, inputs: await payloadInputs(job), ...(video ? { video } : {}) };
}

/**
 * Priority first (higher first); among equal priorities a weighted random order that is the same
 * on every attempt of a task (so a retry goes back to the channel that may hold its job): each
 * channel draws `-ln(u) / weight` with `u` from a hash of task and channel, lowest first. The first
 * pick is channel i with probability weight_i / Σ weights (Efraimidis–Spirakis), as new-api weighs.
 */
export function orderChannels(
  channels: RelayChannelConfig[],
  taskId: string,
  overrides: Map<string, ChannelOverride> = new Map(),
): RelayChannelConfig[] {
  const draw = (c: RelayChannelConfig) => {
    const u = (createHash('sha256').update(`${taskId}\n${c.id}`).digest().readUIntBE(0, 6) + 1) / (2 ** 48 + 1);
    return -Math.log(u) / (overrides.get(c.id)?.weight ?? c.weight);
  };
  return channels
    .map((c) => ({ c, key: draw(c) }))
    .sort((x, y) => y.c.priority - x.c.priority || x.key - y.key)
    .map(({ c }) => c);
}

export function payloadFor(plan: RelayPlan, job: RelayJob, channel: RelayChannelConfig): SubmitPayload {
  return {
    kind: job.kind,
    ...(plan.video ? { video: plan.video } : {}),
    upstreamModel: channel.models[plan.model],
    prompt: job.prompt,
    duration: job.duration,
    ratio: plan.ratio,
    images: plan.images,
    ...plan.inputs,
    seed: channel.sendSeed ? job.seed : undefined,
    ...(job.audio !== undefined ? { audio: job.audio } : {}),
    width: job.width,
    height: job.height,
    fps: job.fps,
  };
}

/**
 * The create's Idempotency-Key: the same for every attempt of one task on one channel, so a
 * retry after a lost answer is recognised upstream. Hashed, so our task ids stay ours.
 */
export function idempotencyKeyFor(taskId: string, channel: RelayChannelConfig): string {
  return `vg-${createHash('sha256').update(`vidgen-relay\n${taskId}\n${channel.id}`).digest('hex').slice(0, 40)}`;
}

/** A backend that relays a single model of ours needs no model in the job; with several it must be told. */
function modelOf(job: RelayJob, config: RelayBackendConfig): string {
  if (job.model) return job.model;
  const served = new Set(config.channels.flatMap((c) => Object.keys(c.models)));
  if (served.size === 1) return [...served][0];
  throw relayFailures.noChannel();
}

/** The listed ratio closest to the output size (sizes are rounded to even pixels, so not always exact). */
export function ratioOf(width: number, height: number): string {
  let best: string = ASPECT_RATIOS[0];
  let bestError = Infinity;
  for (const ratio of ASPECT_RATIOS) {
    const [a, b] = ratio.split(':').map(Number);
    const error = Math.abs(Math.log(width / height) - Math.log(a / b));
    if (error < bestError) [best, bestError] = [ratio, error];
  }
  return best;
}
