import { mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { newId } from '../domain/ids.ts';
import type { TaskEvents } from '../domain/task-events.ts';
import type { BlobStore } from '../blobs/blob-store.ts';
import type { EngineMetrics } from '../engine/engine-metrics.ts';
import type { MediaInputs } from '../engine/inputs/media-inputs.ts';
import type { VideoInputs } from '../engine/inputs/video-inputs.ts';
import { startRetentionSweeper } from '../engine/retention-sweeper.ts';
import { sweepWorkRoot } from '../engine/work-root-sweeper.ts';
import { createWorker } from '../engine/worker.ts';
import { makeStills } from '../media/poster.ts';
import { normalizeImage } from '../media/image-input.ts';
import { probeAudio } from '../media/audio-input.ts';
import { verifyVideo } from '../media/video-probe.ts';
import type { Dialect } from '../api/dialects/dialect.ts';
import { createEventData } from '../api/webhooks/event-data.ts';
import { createSafePost } from '../security/create-safe-fetch.ts';
import { createSafePut } from '../security/create-safe-put.ts';
import type { UrlSigner } from '../security/url-signer.ts';
import { createWebhookDispatcher, type WebhookMetrics } from '../webhooks/webhook-dispatcher.ts';
import { startEventSweeper } from '../webhooks/event-sweeper.ts';
import type { SecretBox } from '../webhooks/secret-box.ts';
import type { Backends } from './backends.ts';
import type { Tracing } from '../observability/tracing/tracing.ts';
import type { SqlStores } from './open-sql-stores.ts';

/** What runs in a worker process (`--role worker`, or `all`): it drains within a grace, then stops. */
export interface WorkerSide {
  drain(graceMs: number): Promise<void>;
  stop(): Promise<void>;
}

export interface TaskWorkerDeps {
  config: Config;
  stores: SqlStores;
  blobs: BlobStore;
  backends: Backends;
  inputs: MediaInputs;
  videos: VideoInputs;
  events: TaskEvents;
  binaries: { ffmpeg: string; ffprobe: string };
  metrics: EngineMetrics;
  logger: Logger;
  clock: () => number;
  tracing: Tracing;
}

/** The task worker and the retention sweeper, after clearing work directories killed processes left. */
export async function startTaskWorker(deps: TaskWorkerDeps): Promise<WorkerSide> {
  const { config, stores, blobs, binaries, logger, clock } = deps;
  const workRoot = join(config.dataDir, 'work');
  await mkdir(workRoot, { recursive: true });
  await sweepWorkRoot(workRoot, logger);
  const worker = createWorker({
    tasks: stores.tasks,
    blobs,
    inputs: deps.inputs,
    videos: deps.videos,
    generators: deps.backends.generators,
    lanes: deps.backends.lanes,
    events: deps.events,
    logger,
    clock,
    workRoot,
    metrics: deps.metrics,
    owner: `${hostname()}:${process.pid}:${newId('w', 4)}`,
    maxRunningPerAccount: config.maxRunningPerAccount,
    lowTierShare: config.batchShare,
    leaseMs: config.leaseSeconds * 1000,
    heartbeatMs: config.heartbeatSeconds * 1000,
    pollMs: config.pollMs,
    fetchSlots: config.fetchConcurrency,
    maxAttempts: config.maxAttempts,
    retentionMs: config.retentionSeconds * 1000,
    // A refused image (media's ImageRejected) becomes a task failure in the engine.
    normalizeImage: async (bytes) => (await normalizeImage(bytes, { maxPixels: config.maxImagePixels })).png,
    probeAudio: (file, signal) => probeAudio(binaries.ffprobe, file, signal),
    verifyVideo: (file, expect) => verifyVideo(binaries.ffprobe, file, expect, binaries.ffmpeg),
    makeStills: (file, seconds, dir) => makeStills(binaries.ffmpeg, file, seconds, dir),
    tracing: deps.tracing,
    delivery: {
      // The upload's time budget grows with the file: 30 s plus a second per MiB.
      put: (url, file, signal) =>
        createSafePut({
          allowPrivate: config.allowPrivateUrls,
          timeoutMs: 30_000 + Math.ceil(file.bytes / 2 ** 20) * 1000,
          maxBytes: 64 * 1024,
        })(url, file, signal),
      files: stores.files,
      blobs,
      retryMs: config.uploadRetryMs,
      clock,
      logger,
    },
  });
  worker.start();
  const sweeper = startRetentionSweeper({
    tasks: stores.tasks,
    blobs,
    files: stores.files,
    intervalMs: config.sweepIntervalSeconds * 1000,
    logger,
    clock,
  });
  return { drain: (graceMs) => worker.stop(graceMs), stop: async () => sweeper.stop() };
}

export interface WebhookDispatcherDeps {
  config: Config;
  stores: SqlStores;
  box: SecretBox;
  signer: UrlSigner;
  dialects: readonly Dialect[];
  /** The listener's own URL: links in events when no public URL is set. */
  url: string;
  /** Signs the deliveries to the operator's webhook (webhooks/operator-webhook.ts). */
  operatorSecret: string;
  metrics: WebhookMetrics;
  logger: Logger;
  clock: () => number;
  tracing: Tracing;
}

/** Delivers the webhook outbox; started after the listener, whose URL event links may need. */
export function startWebhookDispatcher(deps: WebhookDispatcherDeps): WorkerSide {
  const { config, stores, clock } = deps;
  const hooks = config.webhooks;
  const links = { signer: deps.signer, publicUrl: config.publicUrl, signedUrlTtlSeconds: config.signedUrlTtlSeconds };
  const dispatcher = createWebhookDispatcher({
    store: stores.webhooks,
    box: deps.box,
    clock,
    logger: deps.logger.child({ component: 'webhooks' }),
    metrics: deps.metrics,
    post: createSafePost({
      allowPrivate: config.allowPrivateUrls,
      timeoutMs: hooks.timeoutMs,
      maxBytes: 64 * 1024,
      what: 'webhook',
    }),
    // The operator's URL is the operator's own choice: it may be allowed a private address that
    // no account's endpoint is.
    operator: {
      secret: deps.operatorSecret,
      post: createSafePost({
        allowPrivate: config.allowPrivateUrls || Boolean(config.operatorWebhook?.allowPrivate),
        timeoutMs: hooks.timeoutMs,
        maxBytes: 64 * 1024,
        what: 'webhook',
      }),
    },
    eventBody: (id) => stores.eventLog.body(id),
    eventTrace: (id) => stores.eventLog.traceContext(id),
    tracing: deps.tracing,
    eventData: createEventData({
      tasks: stores.tasks,
      dialects: deps.dialects,
      links,
      fallbackBaseUrl: () => deps.url,
      linkKeyOf: (id) => stores.webhooks.linkKeyOf(id),
      clock,
    }),
    schedule: { baseMs: hooks.retryBaseMs, capMs: hooks.retryCapMs, maxAttempts: hooks.maxAttempts },
    owner: `${hostname()}:${process.pid}:${newId('d', 4)}`,
    // A claim outlives the POST it covers; a killed worker's deliveries are retaken after it.
    leaseMs: hooks.timeoutMs + config.leaseSeconds * 1000,
    pollMs: config.pollMs,
    concurrency: hooks.concurrency,
    disableAfterMs: hooks.disableAfterMs,
  });
  dispatcher.start();
  const sweeper = startEventSweeper({
    events: stores.eventLog,
    retentionMs: hooks.eventRetentionMs,
    intervalMs: config.sweepIntervalSeconds * 1000,
    logger: deps.logger,
    clock,
  });
  return { drain: (graceMs) => dispatcher.stop(graceMs), stop: async () => sweeper.stop() };
}
