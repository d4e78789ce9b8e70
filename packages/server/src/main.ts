import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { createLogger, withTraceIds } from './logging.ts';
import { SERVER_VERSION } from './cli/server-usage.ts';
import { noTracing, type Tracing } from './observability/tracing/tracing.ts';
import { describeLinkBase } from './api/links.ts';
import { familyA } from './api/dialects/family-a.ts';
import { familyB } from './api/dialects/family-b.ts';
import { openAiVideos } from './api/dialects/openai-videos.ts';
import { openRouterVideos } from './api/dialects/openrouter-videos.ts';
import type { Dialect } from './api/dialects/dialect.ts';
import { LocalDiskBlobStore } from './blobs/local-disk-blob-store.ts';
import type { S3BlobStore } from './blobs/s3-blob-store.ts';
import { ledgerEffects } from './billing/ledger-effects.ts';
import { usageRollupEffects } from './billing/usage-rollup.ts';
import { perKeyRateLimit } from './billing/rate-limits.ts';
import { keyQuotaEffects } from './billing/key-quotas.ts';
import { loadGuardrails } from './security/prompt-guardrails.ts';
import { createModelCatalog, type ModelCatalog } from './catalog/model-catalog.ts';
import { TaskEvents } from './domain/task-events.ts';
import { FileService } from './engine/file-service.ts';
import { MediaInputs } from './engine/inputs/media-inputs.ts';
import { checkAudioBytes, INPUT_AUDIO_LIMITS, probeAudio } from './media/audio-input.ts';
import { VideoInputs } from './engine/inputs/video-inputs.ts';
import { TaskService } from './engine/task-service.ts';
import { TaskWatch } from './engine/task-watch.ts';
import { registerRelayChannelMetrics } from './generators/relay/relay-channel-metrics.ts';
import { resolveFfmpegBinaries } from './media/ffmpeg-binaries.ts';
import { normalizeImage, sniffImageType } from './media/image-input.ts';
import { checkVideoBytes } from './media/video-input.ts';
import { probeVideo } from './media/video-probe.ts';
import { createPrometheusMetrics } from './observability/prometheus-metrics.ts';
import { createSafeFetch } from './security/create-safe-fetch.ts';
import { loadSigningSecret } from './security/signing-secret.ts';
import { UrlSigner } from './security/url-signer.ts';
import { SecretBox } from './webhooks/secret-box.ts';
import { CallbackSecrets } from './webhooks/callback-secret.ts';
import { balanceLowOutbox } from './webhooks/balance-low-outbox.ts';
import { operatorWebhookSecret } from './webhooks/operator-webhook.ts';
import { checkWebhookUrl } from './webhooks/webhook-url.ts';
import { buildServiceApp, ensureBootstrapKey } from './composition/api-side.ts';
import { createEventOutbox } from './composition/event-outbox.ts';
import { batchEffects, batchLineAnswer, lazyBatchService, startBatchWork } from './composition/batch-side.ts';
import { buildBackends } from './composition/backends.ts';
import { reportUnservedInputs } from './composition/unserved-inputs.ts';
import { openSqlStores } from './composition/open-sql-stores.ts';
import { databaseLocation, readCatalog } from './composition/service-files.ts';
import { startTaskWorker, startWebhookDispatcher, type WorkerSide } from './composition/worker-side.ts';

export interface RunningService {
  /** Base URL of the HTTP listener. */
  url: string;
  app: FastifyInstance;
  /** The key made for account 'default' at this start, when there was none: to be shown once. */
  bootstrapKey?: { id: string; secret: string };
  /** Stops accepting requests, lets running tasks finish for up to `graceMs`, hands back the rest. */
  close(graceMs?: number): Promise<void>;
}

/**
 * How often task streams re-read the revisions of what they watch (engine/task-watch.ts): where
 * hints cross processes (PostgreSQL) only to catch what no hint announced; elsewhere it is also
 * how an API process sees a worker process's changes, as often as a long-poll looks.
 */
const STREAM_RECHECK_MS = { hinted: 10_000, unhinted: 1_000 };

/** The API dialects `npm start` serves. A test may add one: a dialect is one descriptor. */
export const DEFAULT_DIALECTS: readonly Dialect[] = [familyA, familyB, openAiVideos, openRouterVideos];

/**
 * The composition root: the one place that picks implementations. Everything else receives its
 * collaborators. The stores and services are built here; what runs only in a worker process, and
 * the HTTP app, are built by the files of `composition/`.
 */
export async function startService(
  config: Config,
  logger: Logger = createLogger(config.logLevel),
  dialects: readonly Dialect[] = DEFAULT_DIALECTS,
  options: { clock?: () => number } = {},
): Promise<RunningService> {
  // Every time the service writes comes from here: a test passes its own to cross a month's end.
  const clock = options.clock ?? Date.now;
  // Everything the service and its ffmpeg children write (videos, uploads, stills, work folders) is
  // its owner's alone, as the database and the signing key are: files 0600, folders 0700.
  process.umask(0o077);
  const tracing = await startTracing(config, logger);
  if (tracing.enabled) logger = withTraceIds(logger, () => tracing.activeIds());
  await mkdir(config.dataDir, { recursive: true });
  // Created before the database: its wake-ups are bridged to other processes where the database can.
  const events = new TaskEvents();
  // The catalog is built from the backends, which keep relay channel health in the database, so
  // it exists only after the database opens; the ledger looks prices up when a task changes.
  let catalog: ModelCatalog | undefined;
  const prices = { find: (id: string) => catalog?.find(id) };
  // The ledger holds, settles and releases, and the webhook outbox records events, in the
  // transactions of the task changes they follow (docs/architecture.md, invariants 7 and 8).
  const signingSecret = await loadSigningSecret(config.signingSecret, config.dataDir);
  const box = new SecretBox(signingSecret);
  const callbacks = new CallbackSecrets(signingSecret);
  let listenerUrl = '';
  const outbox = createEventOutbox({
    config,
    dialects,
    box,
    callbacks,
    listenerUrl: () => listenerUrl,
    clock,
    tracing,
  });
  // A ledger entry that takes an account under its balance alert writes the alert's event with it.
  const balanceLow = balanceLowOutbox({
    maxAttempts: config.webhooks.maxAttempts,
    operatorUrl: config.operatorWebhook?.url,
  });
  const operatorSecret = operatorWebhookSecret(signingSecret);
  // A batch line's answer is frozen as its task ends, as an event body is (with the same links).
  const batchLineBody = batchLineAnswer(dialects, () => config.publicUrl ?? listenerUrl);
  const batch = batchEffects({ config, render: batchLineBody, clock });
  // The per-key create count comes after the hold, so whatever refuses a submit rolls it back too.
  const effects = [
    ledgerEffects(prices, clock, balanceLow),
    // After the ledger: the hour's spend is the price the settlement fixed.
    usageRollupEffects(clock),
    keyQuotaEffects(prices, clock),
    perKeyRateLimit(config.rateWindowSeconds * 1000, clock),
    outbox,
    // After the ledger: a line's end adds what its task cost to its batch.
    batch.lines,
  ];
  const stores = await openSqlStores(databaseLocation(config), {
    events,
    logger,
    effects,
    tracing,
    balanceLow,
    batchEnd: batch.end,
  });
  const signer = new UrlSigner(signingSecret);
  // Credentials for S3 come from the SDK's usual chain (AWS_ACCESS_KEY_ID, profiles, instance roles).
  // The SDK is loaded only when S3 is configured (bench/idle-rss.bench.ts): local disk never needs it.
  const s3: S3BlobStore | undefined = config.s3
    ? new (await import('./blobs/s3-blob-store.ts')).S3BlobStore(config.s3)
    : undefined;
  const blobs = s3 ?? new LocalDiskBlobStore(join(config.dataDir, 'blobs'));
  await blobs.check();

  const binaries = resolveFfmpegBinaries({ ffmpeg: config.ffmpegPath, ffprobe: config.ffprobePath });
  const backends = await buildBackends(config, binaries, logger, stores.channelHealth);
  catalog = createModelCatalog(
    await readCatalog(config),
    Object.fromEntries(Object.entries(backends.generators).map(([k, g]) => [k, g.kinds])),
  );
  reportUnservedInputs(catalog, backends.generators, logger);
  const safeFetch = (maxBytes: number, what: 'image' | 'video' | 'audio') =>
    createSafeFetch({
      allowPrivate: config.allowPrivateUrls,
      timeoutMs: config.fetchTimeoutMs,
      maxBytes,
      maxRedirects: 5,
      what,
    });
  const probeInputVideo = (file: string, signal?: AbortSignal) => probeVideo(binaries.ffprobe, file, signal);
  const videos = new VideoInputs({
    files: stores.files,
    blobs,
    tasks: stores.tasks,
    fetch: safeFetch(config.fetchVideoMaxBytes, 'video'),
    probe: probeInputVideo,
  });
  const probeInputAudio = (file: string, signal?: AbortSignal) => probeAudio(binaries.ffprobe, file, signal);
  const inputs = new MediaInputs({
    files: stores.files,
    blobs,
    fetch: {
      image: safeFetch(config.fetchMaxBytes, 'image'),
      audio: safeFetch(INPUT_AUDIO_LIMITS.maxBytes, 'audio'),
    },
    checkAudio: (bytes) => checkAudioBytes(probeInputAudio, bytes),
    videos,
  });
  const metrics = createPrometheusMetrics(stores.tasks, {
    perAccount: config.metricsPerAccount,
    deliveries: stores.webhooks,
    lanes: Object.keys(backends.generators),
  });
  // The admin API lists and changes channels through relayChannels.status() / .configure().
  if (backends.relayChannels) registerRelayChannelMetrics(metrics.registry, backends.relayChannels);
  const taskService = new TaskService({
    tasks: stores.tasks,
    blobs,
    catalog,
    inputs,
    videos,
    events,
    clock,
    checkCallbackUrl: (url) => checkWebhookUrl(url, config.allowPrivateUrls, 'callbackUrl'),
    allowPrivateUrls: config.allowPrivateUrls,
    contentCheck: config.guardrailsFile ? await loadGuardrails(config.guardrailsFile, config.secretsEnv) : undefined,
    tracing,
  });
  const watch = new TaskWatch({
    tasks: stores.tasks,
    events,
    recheckMs: stores.wakeupsCrossProcesses ? STREAM_RECHECK_MS.hinted : STREAM_RECHECK_MS.unhinted,
    onReadError: (err) => logger.warn({ err }, 'a watched task could not be read; the next wake-up reads it again'),
  });
  // Uploads are written here as they arrive, then stored (a batch file may be 200 MB).
  const stagingDir = join(config.dataDir, 'uploads');
  await mkdir(stagingDir, { recursive: true });
  const fileService = new FileService({
    files: stores.files,
    blobs,
    clock,
    stagingDir,
    maxUploadBytes: config.uploadLimitBytes,
    checkImage: async (bytes) => {
      await normalizeImage(bytes, { maxPixels: config.maxImagePixels });
      return { mimeType: sniffImageType(bytes) ?? 'application/octet-stream' };
    },
    checkVideo: async (bytes) => (await checkVideoBytes(probeInputVideo, bytes), { mimeType: 'video/mp4' }),
    checkAudio: (bytes) => checkAudioBytes(probeInputAudio, bytes),
  });

  // Work in flight (renders, webhook POSTs) drains in parallel, so shutdown takes one grace at most;
  // then the rest stops in reverse start order, before the database goes.
  const sides: WorkerSide[] = [];
  const runsWork = config.role !== 'api';
  if (runsWork) {
    const sweeper = await startBatchWork({
      config,
      stores,
      blobs,
      dialects,
      taskService,
      fileService,
      render: batchLineBody,
      logger,
      clock,
    });
    sides.push({ drain: () => sweeper.stop(), stop: async () => undefined });
    sides.push(
      await startTaskWorker({
        config,
        stores,
        blobs,
        backends,
        inputs,
        videos,
        events,
        binaries,
        metrics: metrics.engine,
        logger,
        clock,
        tracing,
      }),
    );
  }
  const app = await buildServiceApp({
    config,
    stores,
    blobs,
    catalog,
    backends,
    taskService,
    watch,
    fileService,
    batches: lazyBatchService({ stores, dialects, clock }),
    dialects,
    signer,
    box,
    callbacks,
    operatorSecret,
    metrics,
    logger,
    clock,
    tracing,
  });
  let url: string;
  try {
    url = (await app.listen({ host: config.host, port: config.port })).replace('[::1]', '127.0.0.1');
  } catch (err) {
    await Promise.all(sides.map((side) => side.drain(0)));
    for (const side of sides.reverse()) await side.stop();
    await app.close();
    watch.close();
    await stores.close();
    await tracing.shutdown();
    throw listenError(err, config);
  }
  listenerUrl = url;
  const bootstrapKey = await ensureBootstrapKey(config, stores.accounts, logger, clock());
  if (runsWork)
    sides.push(
      startWebhookDispatcher({
        config,
        stores,
        box,
        signer,
        dialects,
        url,
        operatorSecret,
        metrics: metrics.webhooks,
        logger,
        clock,
        tracing,
      }),
    );
  const linkBase = describeLinkBase({ publicUrl: config.publicUrl, trustProxy: Boolean(config.trustProxy) }, url);
  logger.info({ role: config.role, url, dataDir: config.dataDir, linkBase }, 'vidgen is running');
  return {
    url,
    app,
    bootstrapKey,
    async close(graceMs = 0) {
      await app.close();
      watch.close();
      await Promise.all(sides.map((side) => side.drain(graceMs)));
      for (const side of sides.reverse()) await side.stop();
      if (s3) s3.destroy();
      await stores.close();
      // Last, so the spans of the shutdown itself are exported too.
      await tracing.shutdown();
    },
  };
}

/**
 * Tracing when an OTLP endpoint is configured (docs/observability.md). The SDK is imported only
 * then: a server without tracing loads no OpenTelemetry module and pays nothing per request.
 */
async function startTracing(config: Config, logger: Logger): Promise<Tracing> {
  if (!config.tracing) return noTracing;
  const { createOtelTracing } = await import('./observability/tracing/otel-tracing.ts');
  return createOtelTracing(config.tracing, { version: SERVER_VERSION, role: config.role, logger });
}

/** A port clash names PORT (and HOST), the variables that move the server elsewhere. */
function listenError(err: unknown, config: Config): Error {
  const code = (err as { code?: string }).code;
  if (code === 'EADDRINUSE')
    return new Error(
      `port ${config.port} on ${config.host} is already in use (EADDRINUSE): stop the other server, or set PORT ` +
        `to a free port (PORT=0 picks one)`,
    );
  if (code === 'EADDRNOTAVAIL')
    return new Error(`HOST ${config.host} is not an address of this machine (EADDRNOTAVAIL): set HOST to one`);
  if (code === 'EACCES') return new Error(`port ${config.port} needs privileges (EACCES): set PORT to 1024 or above`);
  return err instanceof Error ? err : new Error(String(err));
}
