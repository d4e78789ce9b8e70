import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { buildApp } from '../app.ts';
import type { Dialect } from '../api/dialects/dialect.ts';
import type { BlobStore } from '../blobs/blob-store.ts';
import { BillingService } from '../billing/billing-service.ts';
import { namesOf, type ModelCatalog } from '../catalog/model-catalog.ts';
import type { FileService } from '../engine/file-service.ts';
import type { BatchService } from '../engine/batches/batch-service.ts';
import { CharacterService } from '../engine/character-service.ts';
import type { TaskService } from '../engine/task-service.ts';
import type { TaskWatch } from '../engine/task-watch.ts';
import { probeWritable } from '../engine/storage-probe.ts';
import { createKeyFor } from '../security/create-key.ts';
import type { UrlSigner } from '../security/url-signer.ts';
import type { SqlAccountStore } from '../store/sql/sql-account-store.ts';
import type { SecretBox } from '../webhooks/secret-box.ts';
import type { CallbackSecrets } from '../webhooks/callback-secret.ts';
import { WebhookService } from '../webhooks/webhook-service.ts';
import type { Backends } from './backends.ts';
import type { SqlStores } from './open-sql-stores.ts';
import type { Tracing } from '../observability/tracing/tracing.ts';

export interface ServiceAppDeps {
  config: Config;
  stores: SqlStores;
  blobs: BlobStore;
  catalog: ModelCatalog;
  backends: Backends;
  taskService: TaskService;
  /** The watchers of this process's task streams. */
  watch: TaskWatch;
  fileService: FileService;
  /** The Batch API's service, built on first use (composition/batch-side.ts). */
  batches: () => Promise<BatchService>;
  dialects: readonly Dialect[];
  signer: UrlSigner;
  box: SecretBox;
  callbacks?: CallbackSecrets;
  /** Shown to the operator with the operator webhook's configuration (`GET /admin/v1/operator-webhook`). */
  operatorSecret: string;
  metrics: { registry: import('prom-client').Registry };
  logger: Logger;
  clock: () => number;
  tracing: Tracing;
}

/**
 * The HTTP app of one process: every route for `api` and `all`, only health and metrics for a
 * worker. Ready means the database answers and the blob store and this process's directories take
 * writes (a full or read-only disk is not ready).
 */
export async function buildServiceApp(deps: ServiceAppDeps): Promise<FastifyInstance> {
  const { config, stores, blobs, clock } = deps;
  const writableDirs = config.role === 'api' ? [config.dataDir] : [config.dataDir, join(config.dataDir, 'work')];
  return buildApp({
    routes: config.role === 'worker' ? 'ops' : 'all',
    ops: {
      ready: () => storageReady(stores, blobs, writableDirs),
      metrics: deps.metrics.registry,
      metricsToken: config.metricsToken,
    },
    accounts: stores.accounts,
    tasks: deps.taskService,
    dialects: deps.dialects,
    files: deps.fileService,
    batches: deps.batches,
    characters: new CharacterService({
      characters: stores.characters,
      files: deps.fileService,
      clock,
    }),
    blobs,
    logger: deps.logger,
    accessLog: config.accessLog,
    clock,
    billing: new BillingService({
      accounts: stores.accounts,
      ledger: stores.ledger,
      clock,
      models: namesOf(deps.catalog, 'the catalog'),
    }),
    adminToken: config.adminToken,
    operatorWebhook: {
      url: config.operatorWebhook?.url ?? null,
      allowPrivate: config.allowPrivateUrls || Boolean(config.operatorWebhook?.allowPrivate),
      secret: deps.operatorSecret,
    },
    signer: deps.signer,
    webhooks: new WebhookService({
      store: stores.webhooks,
      box: deps.box,
      allowPrivateUrls: config.allowPrivateUrls,
      maxAttempts: config.webhooks.maxAttempts,
      clock,
      events: stores.eventLog,
      callbacks: deps.callbacks,
    }),
    relayChannels: deps.backends.relayChannels,
    comfyUiHosts: deps.backends.comfyUiHosts,
    operatorReads: stores.operator,
    bodyLimitBytes: config.bodyLimitBytes,
    uploadLimitBytes: config.uploadLimitBytes,
    publicUrl: config.publicUrl,
    trustProxy: config.trustProxy,
    signedUrlTtlSeconds: config.signedUrlTtlSeconds,
    tracing: deps.tracing,
    streams: { watch: deps.watch, ...config.streams },
    // A worker-only process describes just its probes, collected as they are registered.
    openApiDocument: config.role === 'worker' ? undefined : lazyOpenApiDocument(deps.dialects, config.publicUrl),
    mcp: { ...config.mcp, retentionMs: config.retentionSeconds * 1000 },
  });
}

/**
 * The document `GET /openapi.json` serves, built on its first request from an app of every route
 * (openapi-document.ts, the one `npm run openapi` writes): the OpenAPI plugin, its YAML library and
 * the copies of every route schema it collects stay out of an idle server (docs/performance.md).
 */
function lazyOpenApiDocument(dialects: readonly Dialect[], publicUrl: string | undefined) {
  let document: Promise<Record<string, unknown>> | undefined;
  return () => {
    document ??= import('../openapi-document.ts').then((m) => m.openApiDocument({ dialects, publicUrl }));
    // A failed build is not remembered: the next request tries again.
    document.catch(() => {
      document = undefined;
    });
    return document;
  };
}

/**
 * With no key at all, a newcomer gets one for the account "default". Called once the port is
 * bound: a start that fails (a port clash) must not use up the one showing of a key. The secret is
 * handed back for the start-up text (server-cli.ts prints it on a line of its own); the JSON log
 * gets only its id, so log shipping never carries it.
 */
export async function ensureBootstrapKey(
  config: Config,
  accounts: SqlAccountStore,
  logger: Logger,
  now: number,
): Promise<{ id: string; secret: string } | undefined> {
  if (config.role === 'worker' || (await accounts.countKeys()) > 0) return undefined;
  const created = await createKeyFor(accounts, 'default', undefined, now);
  logger.info(
    { keyId: created.id },
    "No API key existed, so one was created for account 'default'; it is printed once on the server's stderr",
  );
  return { id: created.id, secret: created.secret };
}

async function storageReady(
  database: { ping(): Promise<void> },
  blobs: { check(): Promise<void> },
  dirs: string[],
): Promise<void> {
  await database.ping();
  await blobs.check();
  for (const dir of dirs) await probeWritable(dir);
}
