import { resolve } from 'node:path';

export type Role = 'all' | 'api' | 'worker';

/** Everything the service can be told from its environment. Built from a plain object so tests pass their own. */
export interface Config {
  role: Role;
  host: string;
  port: number;
  dataDir: string;
  /** postgres://… for PostgreSQL; unset means the SQLite file in the data dir. */
  databaseUrl?: string;
  /** S3-compatible object storage for blobs; unset keeps them on the local disk. */
  s3?: { bucket: string; region: string; endpoint?: string; publicEndpoint?: string; forcePathStyle: boolean; prefix?: string };
  publicUrl?: string;
  allowPrivateUrls: boolean;
  bodyLimitBytes: number;
  uploadLimitBytes: number;
  retentionSeconds: number;
  signedUrlTtlSeconds: number;
  signingSecret?: string;
  workerConcurrency: number;
  leaseSeconds: number;
  heartbeatSeconds: number;
  pollMs: number;
  maxAttempts: number;
  sweepIntervalSeconds: number;
  /** Seconds running tasks may take to finish after SIGTERM before they are handed back. */
  shutdownGraceSeconds: number;
  maxRunningPerAccount: number;
  /** Hard limit of one attempt of the built-in renderer. */
  renderDeadlineSeconds: number;
  metricsToken?: string;
  /** Bearer token of the admin API (`/admin/v1/`); unset disables it. */
  adminToken?: string;
  /** Length of the window per-key request limits count in (60: requests per minute). */
  rateWindowSeconds: number;
  /** Label the running-task gauge with account ids; needs `metricsToken` (the ids are not for everyone). */
  metricsPerAccount: boolean;
  /** Proxies whose X-Forwarded-Proto/-Host the links may be built from: `true` or addresses/CIDRs (Fastify's trustProxy). */
  trustProxy?: boolean | string;
  /** ComfyUI hosts and backends (docs/comfyui.md). */
  comfyUiConfigFile?: string;
  /** Relay backends to upstream services (docs/relays.md). */
  backendsFile?: string;
  /** The environment the config came from: relay channels resolve their `api_key_env` names in it. */
  secretsEnv: Env;
  /** Hard limit of one attempt on backends other than the built-in renderer (GPU hosts, relays). */
  backendDeadlineSeconds: number;
  modelsFile?: string;
  ffmpegPath?: string;
  ffprobePath?: string;
  renderPreset: string;
  fetchTimeoutMs: number;
  fetchMaxBytes: number;
  /** Byte cap of input videos (edits, extensions) fetched from URLs or uploaded. */
  fetchVideoMaxBytes: number;
  maxImagePixels: number;
  logLevel: string;
  /** VIDGEN_ACCESS_LOG: one info line per request (default); `0`/`false`/`off` logs only errors. */
  accessLog: boolean;
  /** Webhook deliveries (docs/webhooks.md): the retry schedule, each POST's time limit, POSTs in flight per worker process. */
  webhooks: { retryBaseMs: number; retryCapMs: number; maxAttempts: number; timeoutMs: number; concurrency: number };
}

type Env = Record<string, string | undefined>;

const MiB = 1024 * 1024;

export function loadConfig(env: Env): Config {
  const num = (name: string, fallback: number, min = 0): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < min) throw new Error(`${name} must be a number ≥ ${min}, got "${raw}"`);
    return value;
  };
  if (flag(env.VIDGEN_METRICS_PER_ACCOUNT) && !env.VIDGEN_METRICS_TOKEN) {
    throw new Error('VIDGEN_METRICS_PER_ACCOUNT labels metrics with account ids: set VIDGEN_METRICS_TOKEN too, so that only Prometheus sees them');
  }
  const role = (env.VIDGEN_ROLE ?? 'all') as Role;
  if (!['all', 'api', 'worker'].includes(role)) throw new Error(`VIDGEN_ROLE must be all, api or worker, got "${role}"`);
  return {
    role,
    host: env.HOST || '127.0.0.1',
    port: num('PORT', 8080),
    dataDir: resolve(env.VIDGEN_DATA_DIR || './data'),
    databaseUrl: env.VIDGEN_DATABASE_URL || undefined,
    s3: env.VIDGEN_S3_BUCKET
      ? {
          bucket: env.VIDGEN_S3_BUCKET,
          region: env.VIDGEN_S3_REGION || env.AWS_REGION || 'us-east-1',
          endpoint: env.VIDGEN_S3_ENDPOINT || undefined,
          publicEndpoint: env.VIDGEN_S3_PUBLIC_ENDPOINT || undefined,
          forcePathStyle: ['1', 'true'].includes(env.VIDGEN_S3_FORCE_PATH_STYLE ?? ''),
          prefix: env.VIDGEN_S3_PREFIX || undefined,
        }
      : undefined,
    publicUrl: env.VIDGEN_PUBLIC_URL || undefined,
    allowPrivateUrls: env.VIDGEN_ALLOW_PRIVATE_URLS === '1' || env.VIDGEN_ALLOW_PRIVATE_URLS === 'true',
    bodyLimitBytes: num('VIDGEN_BODY_LIMIT_MB', 32, 1) * MiB,
    uploadLimitBytes: num('VIDGEN_UPLOAD_LIMIT_MB', 100, 1) * MiB,
    retentionSeconds: num('VIDGEN_RETENTION_SECONDS', 24 * 3600, 1),
    signedUrlTtlSeconds: num('VIDGEN_SIGNED_URL_TTL_SECONDS', 3600, 1),
    signingSecret: env.VIDGEN_SIGNING_SECRET || undefined,
    workerConcurrency: num('VIDGEN_WORKER_CONCURRENCY', 2, 1),
    leaseSeconds: num('VIDGEN_LEASE_SECONDS', 30, 1),
    heartbeatSeconds: num('VIDGEN_HEARTBEAT_SECONDS', 10, 0.1),
    pollMs: num('VIDGEN_POLL_MS', 1000, 10),
    maxAttempts: num('VIDGEN_MAX_ATTEMPTS', 3, 1),
    sweepIntervalSeconds: num('VIDGEN_SWEEP_INTERVAL_SECONDS', 60, 0.1),
    shutdownGraceSeconds: num('VIDGEN_SHUTDOWN_GRACE_SECONDS', 30),
    maxRunningPerAccount: num('VIDGEN_MAX_RUNNING_PER_ACCOUNT', 0),
    renderDeadlineSeconds: num('VIDGEN_RENDER_DEADLINE_SECONDS', 600, 1),
    metricsToken: env.VIDGEN_METRICS_TOKEN || undefined,
    adminToken: env.VIDGEN_ADMIN_TOKEN || undefined,
    rateWindowSeconds: num('VIDGEN_RATE_WINDOW_SECONDS', 60, 1),
    metricsPerAccount: flag(env.VIDGEN_METRICS_PER_ACCOUNT),
    trustProxy: trustedProxies(env.VIDGEN_TRUST_PROXY),
    comfyUiConfigFile: env.VIDGEN_COMFYUI_CONFIG || undefined,
    backendsFile: env.VIDGEN_BACKENDS_FILE || undefined,
    secretsEnv: env,
    backendDeadlineSeconds: num('VIDGEN_BACKEND_DEADLINE_SECONDS', 3600, 1),
    modelsFile: env.VIDGEN_MODELS_FILE || undefined,
    ffmpegPath: env.VIDGEN_FFMPEG_PATH || undefined,
    ffprobePath: env.VIDGEN_FFPROBE_PATH || undefined,
    renderPreset: env.VIDGEN_RENDER_PRESET || 'veryfast',
    fetchTimeoutMs: num('VIDGEN_FETCH_TIMEOUT_MS', 15_000, 100),
    fetchMaxBytes: num('VIDGEN_FETCH_MAX_MB', 20, 1) * MiB,
    fetchVideoMaxBytes: num('VIDGEN_FETCH_VIDEO_MAX_MB', 200, 1) * MiB,
    maxImagePixels: num('VIDGEN_MAX_IMAGE_MEGAPIXELS', 40, 1) * 1_000_000,
    logLevel: env.VIDGEN_LOG_LEVEL || 'info',
    accessLog: !['0', 'false', 'off'].includes(env.VIDGEN_ACCESS_LOG ?? ''),
    webhooks: {
      retryBaseMs: num('VIDGEN_WEBHOOK_RETRY_BASE_MS', 10_000, 1),
      retryCapMs: num('VIDGEN_WEBHOOK_RETRY_CAP_MS', 6 * 3600_000, 1),
      maxAttempts: num('VIDGEN_WEBHOOK_MAX_ATTEMPTS', 15, 1),
      timeoutMs: num('VIDGEN_WEBHOOK_TIMEOUT_MS', 10_000, 100),
      concurrency: num('VIDGEN_WEBHOOK_CONCURRENCY', 4, 1),
    },
  };
}

function flag(value: string | undefined): boolean {
  return value === '1' || value === 'true';
}

/** `1`/`true`: any proxy in front; an address list (`10.0.0.1,10.0.0.0/8`): only those; unset, `0`, `false`: none. */
function trustedProxies(value: string | undefined): boolean | string | undefined {
  if (!value || value === '0' || value === 'false') return undefined;
  return flag(value) || value;
}
