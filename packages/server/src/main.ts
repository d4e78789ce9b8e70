import { mkdir, readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { loadConfig, type Config, type Role } from './config.ts';
import { createLogger } from './logging.ts';
import { buildApp } from './app.ts';
import { openSqlDatabase } from './store/sql/database.ts';
import { SqlTaskStore } from './store/sql/sql-task-store.ts';
import { SqlAccountStore } from './store/sql/sql-account-store.ts';
import { SqlFileStore } from './store/sql/sql-file-store.ts';
import { LocalDiskBlobStore } from './blobs/local-disk-blob-store.ts';
import { createModelCatalog } from './catalog/model-catalog.ts';
import { TaskService } from './engine/task-service.ts';
import { FileService } from './engine/file-service.ts';
import { ImageRefResolver } from './engine/image-refs.ts';
import { TaskEvents } from './engine/task-events.ts';
import { createWorker, type Worker } from './engine/worker.ts';
import { startRetentionSweeper } from './engine/retention-sweeper.ts';
import { newId } from './engine/ids.ts';
import { GenerationError, type Generator } from './generators/generator.ts';
import { FfmpegRenderer } from './generators/ffmpeg/ffmpeg-renderer.ts';
import { resolveFfmpegBinaries } from './media/ffmpeg-binaries.ts';
import { verifyVideo } from './media/video-probe.ts';
import { ImageRejected, normalizeImage, sniffImageType } from './media/image-input.ts';
import { createSafeFetch } from './security/create-safe-fetch.ts';
import { UrlSigner } from './security/url-signer.ts';
import { loadSigningSecret } from './signing-secret.ts';
import { createKeyFor, runKeysCommand } from './cli/keys-command.ts';
import defaultModels from './catalog/default-models.json' with { type: 'json' };

export interface RunningService {
  /** Base URL of the HTTP API, when this process serves it. */
  url?: string;
  app?: FastifyInstance;
  close(): Promise<void>;
}

/**
 * The composition root: the one place that picks implementations. Everything else receives
 * its collaborators.
 */
export async function startService(config: Config, logger: Logger = createLogger(config.logLevel)): Promise<RunningService> {
  const clock = Date.now;
  await mkdir(config.dataDir, { recursive: true });
  const database = await openSqlDatabase(config.databaseUrl ?? join(config.dataDir, 'vidgen.db'));
  const tasks = new SqlTaskStore(database.db, database.dialect);
  const accounts = new SqlAccountStore(database.db);
  const fileStore = new SqlFileStore(database.db);
  const blobs = new LocalDiskBlobStore(join(config.dataDir, 'blobs'));
  await blobs.check();

  const binaries = resolveFfmpegBinaries({ ffmpeg: config.ffmpegPath, ffprobe: config.ffprobePath });
  const generators: Record<string, Generator> = { renderer: new FfmpegRenderer({ ffmpeg: binaries.ffmpeg, preset: config.renderPreset }) };
  const catalog = createModelCatalog(await readCatalog(config), Object.fromEntries(Object.entries(generators).map(([k, g]) => [k, g.kinds])));
  const fetch = createSafeFetch({ allowPrivate: config.allowPrivateUrls, timeoutMs: config.fetchTimeoutMs, maxBytes: config.fetchMaxBytes, maxRedirects: 5 });
  const images = new ImageRefResolver({ files: fileStore, blobs, fetch });
  const events = new TaskEvents();
  const taskService = new TaskService({ tasks, blobs, catalog, images, events, clock });
  const checkImage = async (bytes: Buffer) => {
    await normalizeImage(bytes, { maxPixels: config.maxImagePixels });
    return { mimeType: sniffImageType(bytes) ?? 'application/octet-stream' };
  };
  const fileService = new FileService({ files: fileStore, blobs, checkImage, clock });

  const stops: Array<() => Promise<void> | void> = [];
  let worker: Worker | undefined;
  if (runsWorker(config.role)) {
    const workRoot = join(config.dataDir, 'work');
    await mkdir(workRoot, { recursive: true });
    worker = createWorker({
      tasks, blobs, images, generators, events, logger, clock, workRoot,
      owner: `${hostname()}:${process.pid}:${newId('w', 4)}`,
      lanes: Object.fromEntries(Object.keys(generators).map((backend) => [backend, config.workerConcurrency])),
      leaseMs: config.leaseSeconds * 1000,
      heartbeatMs: config.heartbeatSeconds * 1000,
      pollMs: config.pollMs,
      maxAttempts: config.maxAttempts,
      retentionMs: config.retentionSeconds * 1000,
      normalizeImage: async (bytes) => {
        try {
          return (await normalizeImage(bytes, { maxPixels: config.maxImagePixels })).png;
        } catch (err) {
          if (err instanceof ImageRejected) throw new GenerationError(err.code, err.message, false);
          throw err;
        }
      },
      verifyVideo: async (file, expect) => void (await verifyVideo(binaries.ffprobe, file, expect)),
    });
    worker.start();
    stops.push(() => worker!.stop());
    const sweeper = startRetentionSweeper({ tasks, blobs, intervalMs: config.sweepIntervalSeconds * 1000, logger, clock });
    stops.push(() => sweeper.stop());
  }

  let url: string | undefined;
  let app: FastifyInstance | undefined;
  if (runsApi(config.role)) {
    await ensureBootstrapKey(accounts, logger, clock());
    const signer = new UrlSigner(await loadSigningSecret(config.signingSecret, config.dataDir));
    app = await buildApp({
      accounts, tasks: taskService, files: fileService, blobs, signer, logger, clock,
      bodyLimitBytes: config.bodyLimitBytes, uploadLimitBytes: config.uploadLimitBytes,
      publicUrl: config.publicUrl, signedUrlTtlSeconds: config.signedUrlTtlSeconds,
    });
    const address = await app.listen({ host: config.host, port: config.port });
    url = address.replace('[::1]', '127.0.0.1');
    stops.unshift(() => app!.close());
  }
  logger.info({ role: config.role, url, dataDir: config.dataDir }, 'vidgen is running');
  return {
    url,
    app,
    async close() {
      for (const stop of stops) await stop();
      await database.close();
    },
  };
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

const runsApi = (role: Role) => role === 'all' || role === 'api';
const runsWorker = (role: Role) => role === 'all' || role === 'worker';

/** `vidgen-server [--role all|api|worker]` or `vidgen-server keys …`. Returns when the command is done. */
export async function runCli(argv: string[], env: Record<string, string | undefined>): Promise<void> {
  const roleFlag = argv.indexOf('--role');
  const config = loadConfig(roleFlag >= 0 ? { ...env, VIDGEN_ROLE: argv[roleFlag + 1] } : env);
  if (argv[0] === 'keys') {
    await mkdir(config.dataDir, { recursive: true });
    const database = await openSqlDatabase(config.databaseUrl ?? join(config.dataDir, 'vidgen.db'));
    const io = { out: (l: string) => process.stdout.write(`${l}\n`), err: (l: string) => process.stderr.write(`${l}\n`) };
    try {
      process.exitCode = await runKeysCommand(argv.slice(1), new SqlAccountStore(database.db), io, Date.now());
    } finally {
      await database.close();
    }
    return;
  }
  const service = await startService(config);
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    process.stderr.write(`${signal}: shutting down\n`);
    service.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}
