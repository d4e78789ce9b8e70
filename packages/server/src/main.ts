import { mkdir, readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { createLogger } from './logging.ts';
import { buildApp } from './app.ts';
import { describeLinkBase } from './api/links.ts';
import { familyA } from './api/dialects/family-a.ts';
import { familyB } from './api/dialects/family-b.ts';
import type { Dialect } from './api/dialects/dialect.ts';
import { openSqlStores } from './store/sql/open-sql-stores.ts';
import { openSqlDatabase } from './store/sql/database.ts';
import { SqlAccountStore } from './store/sql/sql-account-store.ts';
import { SqlLedger } from './billing/sql-ledger.ts';
import { LocalDiskBlobStore } from './blobs/local-disk-blob-store.ts';
import type { S3BlobStore } from './blobs/s3-blob-store.ts';
import { catalogModelNames, createModelCatalog, namesOf, type ModelCatalog, type ModelNames } from './catalog/model-catalog.ts';
import { TaskService } from './engine/task-service.ts';
import { FileService } from './engine/file-service.ts';
import { ImageInputs } from './engine/inputs/image-inputs.ts';
import { VideoInputs } from './engine/inputs/video-inputs.ts';
import { TaskEvents } from './engine/task-events.ts';
import { createWorker, type Lane } from './engine/worker.ts';
import { startRetentionSweeper } from './engine/retention-sweeper.ts';
import { sweepWorkRoot } from './engine/work-root-sweeper.ts';
import { probeWritable } from './engine/storage-probe.ts';
import { newId } from './engine/ids.ts';
import type { Generator } from './generators/generator.ts';
import { FfmpegRenderer } from './generators/ffmpeg/ffmpeg-renderer.ts';
import type { ChannelHealth } from './generators/relay/channel-health.ts';
import type { RelayChannelDirectory } from './generators/relay/relay-channel-directory.ts';
import { registerRelayChannelMetrics } from './generators/relay/relay-channel-metrics.ts';
import { resolveFfmpegBinaries } from './media/ffmpeg-binaries.ts';
import { probeVideo, verifyVideo } from './media/video-probe.ts';
import { makeStills } from './media/poster.ts';
import { checkVideoBytes } from './media/video-input.ts';
import { normalizeImage, sniffImageType } from './media/image-input.ts';
import { createSafeFetch, createSafePost } from './security/create-safe-fetch.ts';
import { webhookOutbox } from './webhooks/webhook-outbox.ts';
import { WebhookService } from './webhooks/webhook-service.ts';
import { createWebhookDispatcher } from './webhooks/webhook-dispatcher.ts';
import { SecretBox } from './webhooks/secret-box.ts';
import { createEventData } from './api/webhooks/event-data.ts';
import { UrlSigner } from './security/url-signer.ts';
import { createPrometheusMetrics } from './observability/prometheus-metrics.ts';
import { loadSigningSecret } from './signing-secret.ts';
import { createKeyFor } from './cli/keys-command.ts';
import { ledgerEffects } from './billing/ledger-effects.ts';
import { BillingService } from './billing/billing-service.ts';
import defaultModels from './catalog/default-models.json' with { type: 'json' };

export interface RunningService {
  /** Base URL of the HTTP listener. */
  url: string;
  app: FastifyInstance;
  /** Stops accepting requests, lets running tasks finish for up to `graceMs`, hands back the rest. */
  close(graceMs?: number): Promise<void>;
}

/** The API dialects `npm start` serves. A test may add one: a dialect is one descriptor. */
export const DEFAULT_DIALECTS: readonly Dialect[] = [familyA, familyB];

/**
 * The composition root: the one place that picks implementations. Everything else receives
 * its collaborators.
 */
export async function startService(
  config: Config,
  logger: Logger = createLogger(config.logLevel),
  dialects: readonly Dialect[] = DEFAULT_DIALECTS,
): Promise<RunningService> {
  const clock = Date.now;
  const workRoot = join(config.dataDir, 'work');
  await mkdir(config.dataDir, { recursive: true });
  // Created before the database: its wake-ups are bridged to other processes where the database can.
  const events = new TaskEvents();
  const hooks = config.webhooks;
  // The catalog is built from the backends, which keep relay channel health in the database, so
  // it exists only after the database opens; the ledger looks prices up when a task changes.
  let catalog: ModelCatalog | undefined;
  const prices = { find: (id: string) => catalog?.find(id) };
  // The ledger holds, settles and releases, and the webhook outbox records events, in the
  // transactions of the task changes they follow (invariants 7 and 8).
  const effects = [ledgerEffects(prices, clock), webhookOutbox({ maxAttempts: hooks.maxAttempts, clock })];
  const database = await openSqlStores(config.databaseUrl ?? join(config.dataDir, 'vidgen.db'), { events, logger, effects, rateWindowMs: config.rateWindowSeconds * 1000 });
  const { tasks, accounts, files: fileStore, ledger, webhooks: webhookStore } = database;
  const signingSecret = await loadSigningSecret(config.signingSecret, config.dataDir);
  const secretBox = new SecretBox(signingSecret);
  // Credentials for S3 come from the SDK's usual chain (AWS_ACCESS_KEY_ID, profiles, instance roles).
  // The SDK is loaded only when S3 is configured (bench/idle-rss.bench.ts): local disk never needs it.
  const s3: S3BlobStore | undefined = config.s3 ? new (await import('./blobs/s3-blob-store.ts')).S3BlobStore(config.s3) : undefined;
  const blobs = s3 ?? new LocalDiskBlobStore(join(config.dataDir, 'blobs'));
  await blobs.check();

  const binaries = resolveFfmpegBinaries({ ffmpeg: config.ffmpegPath, ffprobe: config.ffprobePath });
  const { generators, lanes, relayChannels } = await buildBackends(config, binaries, logger, database.channelHealth);
  catalog = createModelCatalog(await readCatalog(config), Object.fromEntries(Object.entries(generators).map(([k, g]) => [k, g.kinds])));
  const safeFetch = (maxBytes: number, what: 'image' | 'video') =>
    createSafeFetch({ allowPrivate: config.allowPrivateUrls, timeoutMs: config.fetchTimeoutMs, maxBytes, maxRedirects: 5, what });
  const probeInputVideo = (file: string, signal?: AbortSignal) => probeVideo(binaries.ffprobe, file, signal);
  const images = new ImageInputs({ files: fileStore, blobs, fetch: safeFetch(config.fetchMaxBytes, 'image') });
  const videos = new VideoInputs({ files: fileStore, blobs, tasks, fetch: safeFetch(config.fetchVideoMaxBytes, 'video'), probe: probeInputVideo });
  // Work in flight (renders, webhook POSTs) drains in parallel, so shutdown takes one grace at most;
  // then the rest stops in reverse start order, before the database goes.
  const drains: Array<(graceMs: number) => Promise<void>> = [];
  const stops: Array<() => Promise<void> | void> = [];
  if (s3) stops.push(() => s3.destroy());
  const metrics = createPrometheusMetrics(tasks, { perAccount: config.metricsPerAccount, deliveries: webhookStore });
  // The admin API lists and changes channels through relayChannels.status() / .configure().
  if (relayChannels) registerRelayChannelMetrics(metrics.registry, relayChannels);
  const taskService = new TaskService({ tasks, blobs, catalog, images, videos, events, clock, admission: database.rateLimits });
  const fileService = new FileService({
    files: fileStore, blobs, clock,
    checkImage: (bytes) => checkImage(bytes, config.maxImagePixels),
    checkVideo: async (bytes) => (await checkVideoBytes(probeInputVideo, bytes), { mimeType: 'video/mp4' }),
  });

  if (config.role !== 'api') {
    await mkdir(workRoot, { recursive: true });
    await sweepWorkRoot(workRoot, logger);
    const worker = createWorker({
      tasks, blobs, images, videos, generators, events, logger, clock, workRoot, metrics: metrics.engine,
      owner: `${hostname()}:${process.pid}:${newId('w', 4)}`,
      lanes,
      maxRunningPerAccount: config.maxRunningPerAccount,
      leaseMs: config.leaseSeconds * 1000,
      heartbeatMs: config.heartbeatSeconds * 1000,
      pollMs: config.pollMs,
      maxAttempts: config.maxAttempts,
      retentionMs: config.retentionSeconds * 1000,
      normalizeImage: (bytes) => renderableImage(bytes, config.maxImagePixels),
      verifyVideo: (file, expect) => verifyVideo(binaries.ffprobe, file, expect),
      makeStills: (file, seconds, dir) => makeStills(binaries.ffmpeg, file, seconds, dir),
    });
    worker.start();
    drains.push((graceMs) => worker.stop(graceMs));
    const sweeper = startRetentionSweeper({ tasks, blobs, intervalMs: config.sweepIntervalSeconds * 1000, logger, clock });
    stops.push(() => sweeper.stop());
  }

  if (config.role !== 'worker') await ensureBootstrapKey(accounts, logger, clock());
  const signer = new UrlSigner(signingSecret);
  const app = await buildApp({
    routes: config.role === 'worker' ? 'ops' : 'all',
    ops: { ready: () => storageReady(database, blobs, config.role === 'api' ? [config.dataDir] : [config.dataDir, workRoot]), metrics: metrics.registry, metricsToken: config.metricsToken },
    accounts, tasks: taskService, dialects, files: fileService, blobs, logger, accessLog: config.accessLog, clock,
    billing: new BillingService({ accounts, ledger, clock, models: namesOf(catalog, 'the catalog') }), adminToken: config.adminToken,
    signer,
    webhooks: new WebhookService({ store: webhookStore, box: secretBox, allowPrivateUrls: config.allowPrivateUrls, maxAttempts: hooks.maxAttempts, clock }),
    relayChannels,
    bodyLimitBytes: config.bodyLimitBytes, uploadLimitBytes: config.uploadLimitBytes,
    publicUrl: config.publicUrl, trustProxy: config.trustProxy, signedUrlTtlSeconds: config.signedUrlTtlSeconds,
  });
  const url = (await app.listen({ host: config.host, port: config.port })).replace('[::1]', '127.0.0.1');
  if (config.role !== 'api') {
    const links = { signer, publicUrl: config.publicUrl, signedUrlTtlSeconds: config.signedUrlTtlSeconds };
    const dispatcher = createWebhookDispatcher({
      store: webhookStore, box: secretBox, clock, logger: logger.child({ component: 'webhooks' }), metrics: metrics.webhooks,
      post: createSafePost({ allowPrivate: config.allowPrivateUrls, timeoutMs: hooks.timeoutMs, maxBytes: 64 * 1024, what: 'webhook' }),
      eventData: createEventData({ tasks, dialects, links, fallbackBaseUrl: () => url, linkKeyOf: (id) => webhookStore.linkKeyOf(id), clock }),
      schedule: { baseMs: hooks.retryBaseMs, capMs: hooks.retryCapMs, maxAttempts: hooks.maxAttempts },
      owner: `${hostname()}:${process.pid}:${newId('d', 4)}`,
      // A claim outlives the POST it covers; a killed worker's deliveries are retaken after it.
      leaseMs: hooks.timeoutMs + config.leaseSeconds * 1000,
      pollMs: config.pollMs, concurrency: hooks.concurrency, disableAfterMs: hooks.disableAfterMs,
    });
    dispatcher.start();
    drains.push((graceMs) => dispatcher.stop(graceMs));
  }
  logger.info({ role: config.role, url, dataDir: config.dataDir, linkBase: describeLinkBase({ publicUrl: config.publicUrl, trustProxy: Boolean(config.trustProxy) }, url) }, 'vidgen is running');
  return {
    url,
    app,
    async close(graceMs = 0) {
      await app.close();
      await Promise.all(drains.map((drain) => drain(graceMs)));
      for (const stop of stops.reverse()) await stop();
      await database.close();
    },
  };
}

/** What the operator commands (`vidgen-server keys|accounts|credits|ledger`) work on. */
export interface OperatorTools {
  /** The names of the catalog the server serves. */
  modelNames(): Promise<ModelNames>;
  /**
   * Opens the server's database. Commands call it only once their arguments are checked, so that a
   * refused command line writes nothing, not even an empty database in the wrong place.
   */
  open(): Promise<OperatorDatabase>;
}

export interface OperatorDatabase {
  accounts: SqlAccountStore;
  billing: BillingService;
  /** Where it is, for messages: a key made in another database than the server's is no key. */
  database: string;
  close(): Promise<void>;
}

/** The server's own database and catalog, as the same environment makes the server use them. */
export function operatorTools(config: Config): OperatorTools {
  return {
    modelNames: async () => catalogModelNames(await readCatalog(config), config.modelsFile ? `the catalog in ${config.modelsFile}` : 'the built-in catalog'),
    async open() {
      const location = config.databaseUrl ?? join(config.dataDir, 'vidgen.db');
      if (!config.databaseUrl) await mkdir(config.dataDir, { recursive: true });
      const database = await openSqlDatabase(location);
      const accounts = new SqlAccountStore(database.db);
      return {
        accounts,
        billing: new BillingService({ accounts, ledger: new SqlLedger(database.db), clock: Date.now }),
        database: config.databaseUrl ? withoutPassword(config.databaseUrl) : location,
        close: () => database.close(),
      };
    },
  };
}

function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the database of VIDGEN_DATABASE_URL';
  }
}

/**
 * Every backend a catalog model may name, with its lane: the built-in renderer always, plus the
 * ComfyUI backends of VIDGEN_COMFYUI_CONFIG and the relays of VIDGEN_BACKENDS_FILE. API-only processes build them too (the catalog
 * checks model entries against them); constructing one opens no connection.
 */
async function buildBackends(config: Config, binaries: { ffmpeg: string; ffprobe: string }, logger: Logger, channelHealth: ChannelHealth) {
  const generators: Record<string, Generator> = { renderer: new FfmpegRenderer({ ffmpeg: binaries.ffmpeg, preset: config.renderPreset }) };
  const lanes: Record<string, Lane> = { renderer: { slots: config.workerConcurrency, deadlineMs: config.renderDeadlineSeconds * 1000 } };
  if (config.comfyUiConfigFile) {
    const raw = JSON.parse(await readFile(config.comfyUiConfigFile, 'utf8'));
    // ComfyUI and relay backends (and their WebSocket and HTTP clients) load only when configured.
    const { createComfyUiBackends } = await import('./generators/comfyui/comfyui-backends.ts');
    const comfy = await createComfyUiBackends(raw, { ...binaries, baseDir: dirname(config.comfyUiConfigFile), logger: logger.child({ component: 'comfyui' }) });
    for (const [name, generator] of Object.entries(comfy.generators)) {
      generators[name] = generator;
      lanes[name] = { slots: comfy.lanes[name] ?? 1, deadlineMs: config.backendDeadlineSeconds * 1000 };
    }
  }
  let relayChannels: RelayChannelDirectory | undefined;
  if (config.backendsFile) {
    const { createRelayBackends } = await import('./generators/relay/relay-backends.ts');
    const relays = createRelayBackends(JSON.parse(await readFile(config.backendsFile, 'utf8')), config.secretsEnv, {
      health: channelHealth,
      // Links an upstream hands out on other hosts go through the SSRF-safe fetcher, sized for videos.
      foreignFetch: ({ maxBytes, timeoutMs }) => createSafeFetch({ allowPrivate: config.allowPrivateUrls, timeoutMs, maxBytes, maxRedirects: 5, what: 'video' }),
      logger: logger.child({ component: 'relay' }),
    });
    for (const [name, generator] of Object.entries(relays.generators)) {
      if (generators[name]) throw new Error(`backends file: backend "${name}" is already defined`);
      generators[name] = generator;
      lanes[name] = { slots: relays.slots[name], deadlineMs: relays.deadlinesMs[name] };
    }
    relayChannels = relays.channels;
  }
  return { generators, lanes, relayChannels };
}

/** With no key at all, a newcomer gets one for the account "default", shown once in the log. */
async function ensureBootstrapKey(accounts: SqlAccountStore, logger: Logger, now: number): Promise<void> {
  if ((await accounts.countKeys()) > 0) return;
  const { secret, id } = await createKeyFor(accounts, 'default', undefined, now);
  logger.info({ keyId: id }, `No API key existed, so one was created for account 'default'. It is shown only this once: ${secret}`);
}

async function readCatalog(config: Config): Promise<unknown> {
  if (!config.modelsFile) return defaultModels;
  return JSON.parse(await readFile(config.modelsFile, 'utf8'));
}

async function checkImage(bytes: Buffer, maxPixels: number) {
  await normalizeImage(bytes, { maxPixels });
  return { mimeType: sniffImageType(bytes) ?? 'application/octet-stream' };
}

/** An input image as the worker needs it; a refused image (ImageRejected) becomes a task failure in the engine. */
async function renderableImage(bytes: Buffer, maxPixels: number): Promise<Buffer> {
  return (await normalizeImage(bytes, { maxPixels })).png;
}

/** Ready: the database answers, the blob store can write, and so can the directories this process writes (full or read-only disks). */
async function storageReady(database: { ping(): Promise<void> }, blobs: { check(): Promise<void> }, dirs: string[]): Promise<void> {
  await database.ping();
  await blobs.check();
  for (const dir of dirs) await probeWritable(dir);
}
