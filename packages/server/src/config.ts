import { resolve } from 'node:path';
import { tracingConfigFrom, type TracingConfig } from './observability/tracing/tracing-config.ts';

export const ROLES = ['all', 'api', 'worker'] as const;
export type Role = (typeof ROLES)[number];

/** Everything the service can be told from its environment. Built from a plain object so tests pass their own. */
export interface Config {
  role: Role;
  host: string;
  port: number;
  dataDir: string;
  /** postgres://… for PostgreSQL; unset means the SQLite file in the data dir. */
  databaseUrl?: string;
  /** S3-compatible object storage for blobs; unset keeps them on the local disk. */
  s3?: {
    bucket: string;
    region: string;
    endpoint?: string;
    publicEndpoint?: string;
    forcePathStyle: boolean;
    prefix?: string;
  };
  publicUrl?: string;
  allowPrivateUrls: boolean;
  bodyLimitBytes: number;
  uploadLimitBytes: number;
  retentionSeconds: number;
  signedUrlTtlSeconds: number;
  signingSecret?: string;
  workerConcurrency: number;
  fetchConcurrency: number;
  leaseSeconds: number;
  heartbeatSeconds: number;
  pollMs: number;
  maxAttempts: number;
  sweepIntervalSeconds: number;
  /** Seconds running tasks may take to finish after SIGTERM before they are handed back. */
  shutdownGraceSeconds: number;
  maxRunningPerAccount: number;
  /** Share of a lane's slots flex and batch tasks hold while other tiers' tasks wait (engine/worker.ts). */
  batchShare: number;
  /** How long a batch's files and videos are kept after it ends (docs/batch.md). */
  batchFileRetentionSeconds: number;
  /** Hard limit of one attempt of the built-in renderer. */
  renderDeadlineSeconds: number;
  metricsToken?: string;
  /** Bearer token of the admin API (`/admin/v1/`); unset disables it. */
  adminToken?: string;
  /** Length of the window per-key request limits count in (60: requests per minute). */
  rateWindowSeconds: number;
  /** Label the running-task gauge with account ids; needs `metricsToken` (the ids are not for everyone). */
  metricsPerAccount: boolean;
  /**
   * Proxies whose X-Forwarded-Proto/-Host the links may be built from: `true` or addresses/CIDRs (Fastify's
   * trustProxy).
   */
  trustProxy?: boolean | string;
  /** ComfyUI hosts and backends (docs/comfyui.md). */
  comfyUiConfigFile?: string;
  /** Relay backends to upstream services (docs/relays.md). */
  backendsFile?: string;
  /** The operator's prompt guardrails: words, patterns, a moderation endpoint (docs/economics.md). */
  guardrailsFile?: string;
  /** The environment the config came from: relay channels resolve their `api_key_env` names in it. */
  secretsEnv: Env;
  /** Hard limit of one attempt on ComfyUI backends; relay backends set their own (`deadline_seconds`). */
  backendDeadlineSeconds: number;
  modelsFile?: string;
  ffmpegPath?: string;
  ffprobePath?: string;
  renderPreset: string;
  fetchTimeoutMs: number;
  fetchMaxBytes: number;
  /** Byte cap of input videos (edits, extensions) fetched from URLs or uploaded. */
  fetchVideoMaxBytes: number;
  /** How long a failing PUT of a finished video to its task's `output.upload_url` is retried (docs/storage.md). */
  uploadRetryMs: number;
  maxImagePixels: number;
  logLevel: string;
  /** VIDGEN_ACCESS_LOG: one info line per request (default); `0`/`false`/`off` logs only errors. */
  accessLog: boolean;
  /** Task streams (docs/streams.md): open streams per account in one API process, and their heartbeat. */
  streams: { maxPerAccount: number; heartbeatMs: number; maxLifetimeMs: number };
  /**
   * The MCP endpoint (docs/mcp.md): how long a create called without the task capability waits, and
   * the browser origins that may call it besides the public URL's.
   */
  mcp: { waitMs: number; allowedOrigins: string[] };
  /**
   * Webhook deliveries (docs/webhooks.md): the retry schedule, each POST's time limit, POSTs in flight per worker
   * process.
   */
  webhooks: {
    retryBaseMs: number;
    retryCapMs: number;
    maxAttempts: number;
    timeoutMs: number;
    concurrency: number;
    /** An endpoint whose deliveries all failed for this long is disabled (0: never). */
    disableAfterMs: number;
    /** How long events (and their frozen bodies) stay listable and recoverable. */
    eventRetentionMs: number;
  };
  /** OpenTelemetry tracing from the standard OTEL_* variables (docs/observability.md); undefined: off. */
  tracing?: TracingConfig;
  /**
   * The operator's webhook (docs/webhooks.md, "The operator's webhook"): every account's
   * `account.balance_low` events; `allowPrivate` lets it be on loopback or a private network.
   */
  operatorWebhook?: { url: string; allowPrivate: boolean };
}

type Env = Record<string, string | undefined>;

/** One environment variable: the default `loadConfig` applies, or what happens when it is unset. */
interface Variable {
  fallback?: string | number | boolean;
  /** Smallest accepted value of a number. */
  min?: number;
  /** What an unset variable means, where there is no plain default value. */
  unset?: string;
  about: string;
}

/**
 * Every variable the service reads, with its default: `loadConfig` takes the defaults from here and
 * `vidgen-server --help` prints this table, so the two cannot disagree.
 */
export const ENVIRONMENT = {
  HOST: { fallback: '127.0.0.1', about: 'address the API listens on' },
  PORT: { fallback: 8080, about: 'port the API listens on; 0 picks a free one' },
  VIDGEN_ROLE: { fallback: 'all', about: 'all, api or worker; the --role option wins' },
  VIDGEN_DATA_DIR: {
    fallback: './data',
    about: 'SQLite database, uploaded files, videos, signing secret; key commands must see the same one',
  },
  VIDGEN_DATABASE_URL: {
    unset: 'SQLite in the data dir',
    about: 'postgres://… to use PostgreSQL; key commands must see the same one',
  },
  VIDGEN_PUBLIC_URL: {
    unset: 'the address a request came in on',
    about: 'absolute base of the links the service hands out',
  },
  VIDGEN_TRUST_PROXY: {
    unset: 'none',
    about: 'true, or proxy addresses/CIDRs whose X-Forwarded-Proto/-Host links may use',
  },
  VIDGEN_ALLOW_PRIVATE_URLS: {
    fallback: false,
    about:
      '1: fetch image and video URLs and deliver webhooks (account endpoints, per-request webhook_url, the ' +
      "operator's) on loopback/private networks, for development and tests (`vidgen webhooks listen` needs it)",
  },
  VIDGEN_MODELS_FILE: { unset: 'the built-in catalog', about: 'path of a model catalog JSON file' },
  VIDGEN_RETENTION_SECONDS: { fallback: 24 * 3600, min: 1, about: 'how long results are kept' },
  VIDGEN_SIGNED_URL_TTL_SECONDS: { fallback: 3600, min: 1, about: 'lifetime of signed download links' },
  VIDGEN_SIGNING_SECRET: {
    unset: 'generated in the data dir',
    about: 'HMAC secret of signed links; the same on every API process',
  },
  VIDGEN_BODY_LIMIT_MB: { fallback: 32, min: 1, about: 'largest JSON body' },
  VIDGEN_UPLOAD_LIMIT_MB: { fallback: 100, min: 1, about: 'largest uploaded file' },
  VIDGEN_WORKER_CONCURRENCY: { fallback: 2, min: 1, about: 'renders at once per backend in this process' },
  VIDGEN_FETCH_CONCURRENCY: {
    fallback: 4,
    min: 1,
    about: 'tasks fetching their input images or video at once per backend, outside the render slots',
  },
  VIDGEN_LEASE_SECONDS: { fallback: 30, min: 1, about: 'task lease; an interrupted task runs again once it ran out' },
  VIDGEN_HEARTBEAT_SECONDS: { fallback: 10, min: 0.1, about: 'how often a worker renews its leases' },
  VIDGEN_POLL_MS: { fallback: 1000, min: 10, about: 'how often an idle worker looks for tasks and webhook deliveries' },
  VIDGEN_MAX_ATTEMPTS: { fallback: 3, min: 1, about: 'attempts per task for transient failures' },
  VIDGEN_SWEEP_INTERVAL_SECONDS: { fallback: 60, min: 0.1, about: 'how often expired results are deleted' },
  VIDGEN_SHUTDOWN_GRACE_SECONDS: {
    fallback: 30,
    about: 'on SIGTERM, how long running tasks and webhook deliveries in flight may finish before they are handed back',
  },
  VIDGEN_MAX_RUNNING_PER_ACCOUNT: {
    fallback: 0,
    about: 'most tasks one account may run at once per backend lane; 0: no cap',
  },
  VIDGEN_BATCH_SHARE: {
    fallback: 0.25,
    about:
      'share of a lane’s slots flex and batch tasks may hold while other tiers’ tasks are queued or running ' +
      '(at least one slot); alone they take every slot',
  },
  VIDGEN_BATCH_FILE_RETENTION_SECONDS: {
    fallback: 7 * 24 * 3600,
    min: 1,
    about: 'how long a batch’s input, output and error files (and its videos) are kept after the batch ends',
  },
  VIDGEN_RENDER_DEADLINE_SECONDS: {
    fallback: 600,
    min: 1,
    about: 'hard limit of one attempt of the built-in renderer',
  },
  VIDGEN_BACKEND_DEADLINE_SECONDS: {
    fallback: 3600,
    min: 1,
    about: 'hard limit of one attempt on ComfyUI backends (a relay backend has its own deadline_seconds)',
  },
  VIDGEN_COMFYUI_CONFIG: { unset: 'none', about: 'ComfyUI hosts and backends, see docs/comfyui.md' },
  VIDGEN_BACKENDS_FILE: { unset: 'none', about: 'relay backends to upstream services, see docs/relays.md' },
  VIDGEN_GUARDRAILS_FILE: {
    unset: 'none',
    about: 'prompt guardrails (words, patterns, moderation), docs/economics.md',
  },
  VIDGEN_FFMPEG_PATH: { unset: 'the npm-shipped binary', about: 'ffmpeg binary to use' },
  VIDGEN_FFPROBE_PATH: { unset: 'the npm-shipped binary', about: 'ffprobe binary to use' },
  VIDGEN_RENDER_PRESET: { fallback: 'veryfast', about: 'x264 preset of the built-in renderer' },
  VIDGEN_FETCH_TIMEOUT_MS: { fallback: 15_000, min: 100, about: 'time limit of fetching an image or video URL' },
  VIDGEN_FETCH_MAX_MB: { fallback: 20, min: 1, about: 'largest image fetched from a URL' },
  VIDGEN_UPLOAD_RETRY_SECONDS: {
    fallback: 300,
    min: 0,
    about: "how long a failing upload of a finished video to the caller's `output.upload_url` is retried",
  },
  VIDGEN_FETCH_VIDEO_MAX_MB: {
    fallback: 200,
    min: 1,
    about: 'largest input video of an edit or extension fetched from a URL',
  },
  VIDGEN_MAX_IMAGE_MEGAPIXELS: { fallback: 40, min: 1, about: 'largest decoded input image' },
  VIDGEN_S3_BUCKET: {
    unset: 'local disk',
    about: 'store videos and uploads in this S3-compatible bucket; credentials from the usual AWS_* variables',
  },
  VIDGEN_S3_REGION: { fallback: 'us-east-1', about: 'region of the bucket; AWS_REGION when that is set' },
  VIDGEN_S3_ENDPOINT: { unset: "AWS's endpoint", about: 'endpoint of an S3-compatible service' },
  VIDGEN_S3_PUBLIC_ENDPOINT: { unset: 'VIDGEN_S3_ENDPOINT', about: 'endpoint presigned download links name' },
  VIDGEN_S3_FORCE_PATH_STYLE: {
    fallback: false,
    about: '1: path-style bucket addressing, as most S3-compatible servers want',
  },
  VIDGEN_S3_PREFIX: { unset: 'none', about: 'key prefix of every object' },
  VIDGEN_METRICS_TOKEN: { unset: 'none, /metrics is open', about: '/metrics requires Authorization: Bearer <token>' },
  VIDGEN_METRICS_PER_ACCOUNT: {
    fallback: false,
    about: '1: label vidgen_running_tasks with account ids; needs VIDGEN_METRICS_TOKEN',
  },
  VIDGEN_ADMIN_TOKEN: {
    unset: 'none, the admin API is off',
    about: 'enables the admin API /admin/v1/ for Authorization: Bearer <token>',
  },
  VIDGEN_RATE_WINDOW_SECONDS: { fallback: 60, min: 1, about: 'window of the per-key create limit' },
  VIDGEN_WEBHOOK_RETRY_BASE_MS: { fallback: 10_000, min: 1, about: 'first webhook retry delay; doubles each time' },
  VIDGEN_WEBHOOK_RETRY_CAP_MS: { fallback: 6 * 3600_000, min: 1, about: 'longest webhook retry delay' },
  VIDGEN_WEBHOOK_MAX_ATTEMPTS: { fallback: 15, min: 1, about: 'delivery attempts per webhook event' },
  VIDGEN_WEBHOOK_TIMEOUT_MS: { fallback: 10_000, min: 100, about: 'time limit of one webhook POST' },
  VIDGEN_WEBHOOK_CONCURRENCY: { fallback: 4, min: 1, about: 'webhook deliveries in flight per worker process' },
  VIDGEN_WEBHOOK_DISABLE_AFTER_SECONDS: {
    fallback: 5 * 86_400,
    min: 0,
    about: 'an endpoint failing every delivery this long is disabled (0: never)',
  },
  VIDGEN_EVENT_RETENTION_SECONDS: {
    fallback: 30 * 86_400,
    min: 1,
    about: 'how long GET /v1/events lists an event and recover can send it again',
  },
  VIDGEN_OPERATOR_WEBHOOK_URL: {
    unset: 'none',
    about: "the operator's receiver of every account's account.balance_low events (Standard Webhooks, signed)",
  },
  VIDGEN_OPERATOR_WEBHOOK_ALLOW_PRIVATE: {
    fallback: false,
    about:
      '1: the operator webhook alone may be on loopback/private networks (VIDGEN_ALLOW_PRIVATE_URLS=1 opens it and ' +
      "the accounts' endpoints too)",
  },
  VIDGEN_MAX_STREAMS_PER_ACCOUNT: {
    fallback: 50,
    min: 1,
    about: 'task event streams one account may hold open on one API process; over it, 429 (docs/streams.md)',
  },
  VIDGEN_STREAM_HEARTBEAT_SECONDS: {
    fallback: 15,
    min: 0.01,
    about: 'how often an idle task event stream sends a comment line, so proxies and clients keep it open',
  },
  VIDGEN_STREAM_MAX_SECONDS: {
    fallback: 600,
    min: 0.01,
    about: 'longest life of one task event stream; then its client reconnects, its key checked again',
  },
  VIDGEN_MCP_WAIT_SECONDS: {
    fallback: 50,
    min: 0,
    about: "how long an MCP generate_video without the task capability waits for the video (under agents' 60 s)",
  },
  VIDGEN_MCP_ALLOWED_ORIGINS: {
    unset: "only VIDGEN_PUBLIC_URL's",
    about: 'comma-separated browser origins that may call /mcp; any other Origin is refused (DNS rebinding)',
  },
  VIDGEN_LOG_LEVEL: { fallback: 'info', about: 'pino log level; logs are JSON on stdout' },
  VIDGEN_ACCESS_LOG: {
    fallback: 'on',
    about: 'one info line per request (held long-polls at debug); 0, false or off logs only failed requests',
  },
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    unset: 'tracing off',
    about: 'OTLP/HTTP collector base URL: traces go to its /v1/traces (other OTEL_* variables: docs/observability.md)',
  },
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: {
    unset: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    about: 'full OTLP/HTTP URL traces are sent to, as protobuf',
  },
  OTEL_SERVICE_NAME: { fallback: 'vidgen', about: 'service.name of the traces' },
  OTEL_SDK_DISABLED: { fallback: false, about: 'true: no tracing, whatever else is set' },
} as const satisfies Record<string, Variable>;

type Variables = typeof ENVIRONMENT;
type Name = keyof Variables;
type NameOf<T> = { [K in Name]: Variables[K] extends { fallback: T } ? K : never }[Name];

/** The variable table as `--help` prints it: each name with its default in words. */
export function describeEnvironment(): Array<{ name: string; fallback: string; about: string }> {
  return Object.entries(ENVIRONMENT).map(([name, v]: [string, Variable]) => ({
    name,
    fallback: v.unset ?? (typeof v.fallback === 'boolean' ? (v.fallback ? 'on' : 'off') : String(v.fallback)),
    about: v.about,
  }));
}

const MiB = 1024 * 1024;

export function loadConfig(env: Env): Config {
  const num = (name: NameOf<number>): number => {
    const { fallback, min = 0 }: Variable = ENVIRONMENT[name];
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback as number;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < min) throw new Error(`${name} must be a number ≥ ${min}, got "${raw}"`);
    return value;
  };
  const text = (name: NameOf<string>): string => env[name] || ENVIRONMENT[name].fallback;
  // Variables with no default: unset and empty both mean "not configured".
  const optional = (name: Exclude<Name, NameOf<unknown>>): string | undefined => env[name] || undefined;
  const on = (name: NameOf<boolean>): boolean => (env[name] ? flag(env[name]) : ENVIRONMENT[name].fallback);
  if (on('VIDGEN_METRICS_PER_ACCOUNT') && !env.VIDGEN_METRICS_TOKEN) {
    throw new Error(
      'VIDGEN_METRICS_PER_ACCOUNT labels metrics with account ids: set VIDGEN_METRICS_TOKEN too, so that only ' +
        'Prometheus sees them',
    );
  }
  const role = text('VIDGEN_ROLE') as Role;
  if (!ROLES.includes(role)) throw new Error(`VIDGEN_ROLE must be all, api or worker, got "${role}"`);
  const bucket = optional('VIDGEN_S3_BUCKET');
  return {
    role,
    host: text('HOST'),
    port: num('PORT'),
    dataDir: resolve(text('VIDGEN_DATA_DIR')),
    databaseUrl: optional('VIDGEN_DATABASE_URL'),
    s3: bucket
      ? {
          bucket,
          region: env.VIDGEN_S3_REGION || env.AWS_REGION || ENVIRONMENT.VIDGEN_S3_REGION.fallback,
          endpoint: optional('VIDGEN_S3_ENDPOINT'),
          publicEndpoint: optional('VIDGEN_S3_PUBLIC_ENDPOINT'),
          forcePathStyle: on('VIDGEN_S3_FORCE_PATH_STYLE'),
          prefix: optional('VIDGEN_S3_PREFIX'),
        }
      : undefined,
    publicUrl: optional('VIDGEN_PUBLIC_URL'),
    allowPrivateUrls: on('VIDGEN_ALLOW_PRIVATE_URLS'),
    bodyLimitBytes: num('VIDGEN_BODY_LIMIT_MB') * MiB,
    uploadLimitBytes: num('VIDGEN_UPLOAD_LIMIT_MB') * MiB,
    retentionSeconds: num('VIDGEN_RETENTION_SECONDS'),
    signedUrlTtlSeconds: num('VIDGEN_SIGNED_URL_TTL_SECONDS'),
    signingSecret: optional('VIDGEN_SIGNING_SECRET'),
    workerConcurrency: num('VIDGEN_WORKER_CONCURRENCY'),
    fetchConcurrency: num('VIDGEN_FETCH_CONCURRENCY'),
    leaseSeconds: num('VIDGEN_LEASE_SECONDS'),
    heartbeatSeconds: num('VIDGEN_HEARTBEAT_SECONDS'),
    pollMs: num('VIDGEN_POLL_MS'),
    maxAttempts: num('VIDGEN_MAX_ATTEMPTS'),
    sweepIntervalSeconds: num('VIDGEN_SWEEP_INTERVAL_SECONDS'),
    shutdownGraceSeconds: num('VIDGEN_SHUTDOWN_GRACE_SECONDS'),
    maxRunningPerAccount: num('VIDGEN_MAX_RUNNING_PER_ACCOUNT'),
    batchShare: Math.min(1, num('VIDGEN_BATCH_SHARE')),
    batchFileRetentionSeconds: num('VIDGEN_BATCH_FILE_RETENTION_SECONDS'),
    renderDeadlineSeconds: num('VIDGEN_RENDER_DEADLINE_SECONDS'),
    metricsToken: optional('VIDGEN_METRICS_TOKEN'),
    adminToken: optional('VIDGEN_ADMIN_TOKEN'),
    rateWindowSeconds: num('VIDGEN_RATE_WINDOW_SECONDS'),
    metricsPerAccount: on('VIDGEN_METRICS_PER_ACCOUNT'),
    trustProxy: trustedProxies(optional('VIDGEN_TRUST_PROXY')),
    comfyUiConfigFile: optional('VIDGEN_COMFYUI_CONFIG'),
    backendsFile: optional('VIDGEN_BACKENDS_FILE'),
    guardrailsFile: optional('VIDGEN_GUARDRAILS_FILE'),
    secretsEnv: env,
    backendDeadlineSeconds: num('VIDGEN_BACKEND_DEADLINE_SECONDS'),
    modelsFile: optional('VIDGEN_MODELS_FILE'),
    ffmpegPath: optional('VIDGEN_FFMPEG_PATH'),
    ffprobePath: optional('VIDGEN_FFPROBE_PATH'),
    renderPreset: text('VIDGEN_RENDER_PRESET'),
    fetchTimeoutMs: num('VIDGEN_FETCH_TIMEOUT_MS'),
    fetchMaxBytes: num('VIDGEN_FETCH_MAX_MB') * MiB,
    fetchVideoMaxBytes: num('VIDGEN_FETCH_VIDEO_MAX_MB') * MiB,
    uploadRetryMs: num('VIDGEN_UPLOAD_RETRY_SECONDS') * 1000,
    maxImagePixels: num('VIDGEN_MAX_IMAGE_MEGAPIXELS') * 1_000_000,
    logLevel: text('VIDGEN_LOG_LEVEL'),
    accessLog: !['0', 'false', 'off'].includes(text('VIDGEN_ACCESS_LOG')),
    streams: {
      maxPerAccount: Math.floor(num('VIDGEN_MAX_STREAMS_PER_ACCOUNT')),
      heartbeatMs: num('VIDGEN_STREAM_HEARTBEAT_SECONDS') * 1000,
      maxLifetimeMs: num('VIDGEN_STREAM_MAX_SECONDS') * 1000,
    },
    mcp: {
      waitMs: num('VIDGEN_MCP_WAIT_SECONDS') * 1000,
      allowedOrigins: (optional('VIDGEN_MCP_ALLOWED_ORIGINS') ?? '')
        .split(',')
        .map((origin) => origin.trim())
        .filter(Boolean),
    },
    webhooks: {
      retryBaseMs: num('VIDGEN_WEBHOOK_RETRY_BASE_MS'),
      retryCapMs: num('VIDGEN_WEBHOOK_RETRY_CAP_MS'),
      maxAttempts: num('VIDGEN_WEBHOOK_MAX_ATTEMPTS'),
      timeoutMs: num('VIDGEN_WEBHOOK_TIMEOUT_MS'),
      concurrency: num('VIDGEN_WEBHOOK_CONCURRENCY'),
      // Svix's rule: an endpoint failing every delivery for 5 days is disabled, so dead receivers stop costing
      // attempts.
      disableAfterMs: num('VIDGEN_WEBHOOK_DISABLE_AFTER_SECONDS') * 1000,
      eventRetentionMs: num('VIDGEN_EVENT_RETENTION_SECONDS') * 1000,
    },
    tracing: tracingConfigFrom(env),
    operatorWebhook: operatorWebhook(
      optional('VIDGEN_OPERATOR_WEBHOOK_URL'),
      on('VIDGEN_OPERATOR_WEBHOOK_ALLOW_PRIVATE'),
    ),
  };
}

/**
 * The operator's webhook URL, checked at start (a bad one stops the service with its name): http(s)
 * and no credentials. Its address is checked at every delivery, as an endpoint's is.
 */
function operatorWebhook(url: string | undefined, allowPrivate: boolean): Config['operatorWebhook'] {
  if (!url) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('VIDGEN_OPERATOR_WEBHOOK_URL must be an http(s) URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new Error('VIDGEN_OPERATOR_WEBHOOK_URL must be an http(s) URL');
  if (parsed.username !== '' || parsed.password !== '')
    throw new Error('VIDGEN_OPERATOR_WEBHOOK_URL must not contain credentials; it is signed instead');
  return { url: parsed.href, allowPrivate };
}

function flag(value: string | undefined): boolean {
  return value === '1' || value === 'true';
}

/** `1`/`true`: any proxy in front; an address list (`10.0.0.1,10.0.0.0/8`): only those; unset, `0`, `false`: none. */
function trustedProxies(value: string | undefined): boolean | string | undefined {
  if (!value || value === '0' || value === 'false') return undefined;
  return flag(value) || value;
}
