import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { BATCH_FILE_MAX_BYTES } from './engine/jsonl-file.ts';
import type { Logger } from 'pino';
import type { AccountStore } from './store/account-store.ts';
import type { BlobStore } from './blobs/blob-store.ts';
import type { TaskService } from './engine/task-service.ts';
import type { FileService } from './engine/file-service.ts';
import type { UrlSigner } from './security/url-signer.ts';
import { newId } from './domain/ids.ts';
import { installErrorHandling } from './api/error-handler.ts';
import { AccessLog } from './api/access-log.ts';
import { RequestLogger } from './api/request-logger.ts';
import { frameworkRefusals, installEdgeGuards } from './api/edge-guards.ts';
import { createAuthenticator, type Authenticate } from './api/authenticate.ts';
import { registerTaskRoutes } from './api/task-routes.ts';
import { registerSubmitRoutes } from './api/submit-routes.ts';
import { installDialectClaims } from './api/dialect-claims.ts';
import type { Dialect } from './api/dialects/dialect.ts';
import { modelsOfCaller, registerModelRoutes } from './api/models/routes.ts';
import { registerMcpRoute } from './api/mcp/mcp-route.ts';
import { registerFileRoutes } from './api/files/routes.ts';
import { registerCharacterRoutes } from './api/characters/routes.ts';
import { registerContentRoutes } from './api/content/routes.ts';
import { registerFileContentRoute } from './api/files/file-content.ts';
import { registerOpsRoutes, type OpsDeps } from './api/ops/routes.ts';
import { registerConsoleRoutes } from './api/console/routes.ts';
import { registerAdminConsoleRoutes } from './api/console/admin-console-routes.ts';
import { registerOpenApi } from './api/openapi/routes.ts';
import { sharedSerializers } from './api/shared-serializers.ts';
import { registerAccountRoutes } from './api/account/routes.ts';
import { registerAdminRoutes } from './api/admin/routes.ts';
import type { BillingService } from './billing/billing-service.ts';
import { registerWebhookRoutes } from './api/webhooks/routes.ts';
import type { WebhookService } from './webhooks/webhook-service.ts';
import type { ChannelAdmin, ComfyUiHostsAdmin } from './api/admin/channel-routes.ts';
import type { OperatorReads } from './store/operator-reads.ts';
import { httpSpans } from './api/http-tracing.ts';
import type { Tracing } from './observability/tracing/tracing.ts';
import type { OperatorWebhookView } from './api/admin/operator-webhook-route.ts';
import type { TaskWatch } from './engine/task-watch.ts';
import type { CharacterService } from './engine/character-service.ts';
import { OpenStreams } from './api/streams/open-streams.ts';
import { endUnusedConnectionsOnClose } from './api/unused-connections.ts';
import { BODY_VALIDATION } from './api/route-schemas.ts';
import { registerBatchRoutes } from './api/batches/routes.ts';
import type { BatchService } from './engine/batches/batch-service.ts';

export interface AppDeps {
  /** `ops` serves only health, readiness and metrics (a worker-only process). */
  routes: 'all' | 'ops';
  /**
   * Builds the document `GET /openapi.json` serves, on first use (composition/api-side.ts). Absent:
   * this app collects its own routes into it as they are registered (the app openapi-document.ts builds).
   */
  openApiDocument?: () => Promise<Record<string, unknown>>;
  ops: OpsDeps;
  accounts: AccountStore;
  tasks: TaskService;
  /** The API dialects served, each with its own task routes (family A, family B). */
  dialects: readonly Dialect[];
  files: FileService;
  /** OpenAI's characters (`/v1/videos/characters`): reference videos with a name. */
  characters: CharacterService;
  blobs: BlobStore;
  signer: UrlSigner;
  logger: Logger;
  /** One info line per request (api/access-log.ts); off, only errors are logged. Default on. */
  accessLog?: boolean;
  bodyLimitBytes: number;
  uploadLimitBytes: number;
  publicUrl?: string;
  /** Proxies whose X-Forwarded-* headers are believed (Fastify trustProxy); links use them only then. */
  trustProxy?: boolean | string;
  signedUrlTtlSeconds: number;
  clock: () => number;
  /** Accounts, credits, ledger and usage (`/v1/account`, `/v1/usage`, `/admin/v1/*`). */
  billing: BillingService;
  /** VIDGEN_ADMIN_TOKEN; the admin API is disabled without it. */
  adminToken?: string;
  /** The operator's webhook as configured (`GET /admin/v1/operator-webhook`). */
  operatorWebhook?: OperatorWebhookView;
  /** The Batch API's service (`/v1/batches`, docs/batch.md), built on its first use. */
  batches: () => Promise<BatchService>;
  /** Webhook endpoints (`/v1/webhooks`); absent, the routes are not served. */
  webhooks?: WebhookService;
  /** Relay channels of VIDGEN_BACKENDS_FILE (`/admin/v1/channels`); absent, that list is empty. */
  relayChannels?: ChannelAdmin;
  /** ComfyUI hosts of VIDGEN_COMFYUI_CONFIG (`/admin/v1/comfyui-hosts`); absent, that list is empty. */
  comfyUiHosts?: ComfyUiHostsAdmin;
  /** The operator console's reads across accounts (`/admin/v1/tasks`, `/overview`, `/usage/series`, …). */
  operatorReads: OperatorReads;
  /** A server span per request when on (docs/observability.md); absent or off, no hook is added. */
  tracing?: Tracing;
  /**
   * Task streams (`<poll>/events`, docs/streams.md): the process's watchers, the bound per account,
   * the heartbeat, how long one stream may last.
   */
  streams: { watch: TaskWatch; maxPerAccount: number; heartbeatMs: number; maxLifetimeMs: number };
  /**
   * `/mcp` (docs/mcp.md): how long a create without the task capability waits, the longest a
   * video is kept (an MCP task's longest `ttl`), the browser origins allowed besides the public
   * URL's. Absent, the endpoint is not served.
   */
  mcp?: { waitMs: number; retentionMs: number; allowedOrigins: readonly string[] };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** No API key needed (health checks). */
    public?: boolean;
    /** The route authenticates by itself: Bearer key or a signed link. */
    publicWithSignature?: boolean;
  }
}

/** The HTTP API. Never listens by itself: `main.ts` (or a test) decides where. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const nextRequestId = requestIds();
  const spans = deps.tracing?.enabled ? httpSpans(deps.tracing) : undefined;
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: deps.bodyLimitBytes,
    requestIdHeader: false,
    logController: new AccessLog(deps.logger, deps.accessLog ?? true, spans?.idsOf),
    childLoggerFactory: (logger, bindings, options) => new RequestLogger(logger, bindings, options),
    genReqId: nextRequestId,
    trustProxy: deps.trustProxy ?? false,
    ...frameworkRefusals(deps.dialects, nextRequestId),
    ajv: { customOptions: BODY_VALIDATION },
    schemaController: { compilersFactory: { buildSerializer: sharedSerializers() } },
  });
  // Only JSON bodies (and multipart on /v1/files) are accepted; plain text would be refused by schema anyway,
  // but a 415 tells the caller what to change.
  app.removeContentTypeParser(['text/plain', 'application/json']);
  // First, so every later hook (the key check, edge guards) runs inside the request's span.
  spans?.install(app);
  installEdgeGuards(app);
  endUnusedConnectionsOnClose(app);

  const authenticate = createAuthenticator(deps.accounts, deps.clock);
  app.decorateRequest('caller', null);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  // The key check is attached to each route that needs one, when it is registered, rather than
  // decided per request: a public route then costs nothing for it. It runs before the route's own hooks.
  app.addHook('onRoute', (route) => {
    if (route.config?.public || route.config?.publicWithSignature) return;
    route.onRequest = [(request, _reply, done) => requireKey(authenticate, request, done), ...hooksOf(route.onRequest)];
  });
  installErrorHandling(app, deps.dialects);

  await registerOpenApi(app, { publicUrl: deps.publicUrl, document: deps.openApiDocument });
  registerOpsRoutes(app, deps.ops);
  if (deps.routes === 'ops') return app;
  const links = {
    signer: deps.signer,
    publicUrl: deps.publicUrl,
    trustProxy: Boolean(deps.trustProxy),
    signedUrlTtlSeconds: deps.signedUrlTtlSeconds,
  };
  registerModelRoutes(app, { tasks: deps.tasks, dialects: deps.dialects, prices: deps.billing });
  installDialectClaims(app, deps.dialects);
  await registerSubmitRoutes(app, deps.dialects, {
    tasks: deps.tasks,
    files: deps.files,
    uploadLimitBytes: deps.uploadLimitBytes,
  });
  const streams = new OpenStreams({ ...deps.streams, clock: deps.clock });
  // Before the listener closes: open streams would otherwise hold the drain until their tasks end.
  app.addHook('preClose', (done) => {
    streams.closeAll();
    done();
  });
  for (const dialect of deps.dialects)
    registerTaskRoutes(app, dialect, {
      tasks: deps.tasks,
      links,
      clock: deps.clock,
      watch: deps.streams.watch,
      streams,
    });
  if (deps.mcp) {
    const { allowedOrigins, ...mcp } = deps.mcp;
    registerMcpRoute(app, {
      ...mcp,
      tasks: deps.tasks,
      watch: deps.streams.watch,
      blobs: deps.blobs,
      dialects: deps.dialects,
      models: modelsOfCaller({ tasks: deps.tasks, dialects: deps.dialects, prices: deps.billing }),
      links,
      clock: deps.clock,
      allowedOrigins: deps.publicUrl ? [new URL(deps.publicUrl).origin, ...allowedOrigins] : allowedOrigins,
    });
  }
  // Multipart is parsed only where files are uploaded: the plugin hooks every response of its
  // scope (to delete temporary uploads), which would otherwise cost every poll a little.
  await app.register(async (uploads) => {
    // The part limit is a batch file's; an image or a video is held to the upload limit once its
    // purpose is known (a form may name it after the file).
    const fileSize = Math.max(deps.uploadLimitBytes, BATCH_FILE_MAX_BYTES);
    await uploads.register(multipart, { limits: { fileSize, files: 1, fields: 10 } });
    registerFileRoutes(uploads, { files: deps.files });
    registerCharacterRoutes(uploads, { characters: deps.characters, files: deps.files });
  });
  registerBatchRoutes(app, { batches: deps.batches });
  if (deps.webhooks) registerWebhookRoutes(app, { webhooks: deps.webhooks });
  registerContentRoutes(app, { ...deps, authenticate });
  registerFileContentRoute(app, { ...deps, authenticate });
  registerConsoleRoutes(app, { publicUrl: deps.publicUrl, blobs: deps.blobs });
  registerAdminConsoleRoutes(app, { enabled: Boolean(deps.adminToken), publicUrl: deps.publicUrl, blobs: deps.blobs });
  registerAccountRoutes(app, { billing: deps.billing });
  registerAdminRoutes(app, {
    billing: deps.billing,
    accounts: deps.accounts,
    adminToken: deps.adminToken,
    webhooks: deps.webhooks,
    channels: deps.relayChannels,
    comfyUiHosts: deps.comfyUiHosts,
    operatorWebhook: deps.operatorWebhook,
    reads: deps.operatorReads,
    tasks: deps.tasks,
    links,
    clock: deps.clock,
  });
  return app;
}

/** `req-<process prefix>-<counter>`: unique, cheap (no random bytes per request), sortable in logs. */
function requestIds(): () => string {
  const prefix = newId('req', 6);
  let counter = 0;
  return () => `${prefix}-${(++counter).toString(36)}`;
}

/**
 * Callback-style (not async): a remembered key costs no promise. A refusal reaches Fastify's
 * error handling as an error, like any other.
 */
function requireKey(authenticate: Authenticate, request: FastifyRequest, done: (err?: Error) => void): void {
  let lookingUp: Promise<void> | undefined;
  try {
    lookingUp = authenticate(request);
  } catch (err) {
    return done(err as Error);
  }
  if (lookingUp) lookingUp.then(() => done(), done);
  else done();
}

function hooksOf<T>(hooks: T | T[] | undefined): T[] {
  return hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
}
