import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../packages/server/src/config.ts';
import { startService, type RunningService } from '../../../packages/server/src/main.ts';
import { createLogger } from '../../../packages/server/src/logging.ts';
import { openSqlDatabase } from '../../../packages/server/src/store/sql/database.ts';
import { SqlLedger } from '../../../packages/server/src/billing/sql-ledger.ts';
import type { VerifyReport } from '../../../packages/server/src/billing/ledger.ts';
import { api, type Api } from './http.ts';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';
/** Ticks per output second of the test models: a 5 s task costs 5 000 000 000 ticks ($0.50). */
export const TICKS_PER_SECOND = 1_000_000_000;

/** Small, fast models with a price: 144p renders in well under a second a second. */
export const PRICED_MODELS = {
  models: [
    {
      id: 'tiny-5s',
      family: 'B',
      backend: 'renderer',
      resolution: '144p',
      durations: [5],
      aspect_ratios: ['16:9'],
      price: { usd_ticks_per_second: TICKS_PER_SECOND },
    },
    {
      id: 'tiny-1s',
      family: 'B',
      backend: 'renderer',
      resolution: '144p',
      durations: [1],
      aspect_ratios: ['16:9'],
      price: { usd_ticks_per_second: TICKS_PER_SECOND },
    },
    {
      id: 'tiny-long',
      family: 'B',
      backend: 'renderer',
      resolution: '144p',
      durations: [60],
      aspect_ratios: ['16:9'],
      price: { usd_ticks_per_second: TICKS_PER_SECOND },
    },
    {
      id: 'tiny-o',
      family: 'O',
      backend: 'renderer',
      resolution: '144p',
      durations: [1],
      aspect_ratios: ['16:9'],
      price: { usd_ticks_per_second: TICKS_PER_SECOND },
    },
    {
      id: 'tiny-a',
      family: 'A',
      backend: 'renderer',
      resolution: '144p',
      durations: { min: 1, max: 15 },
      price: { usd_ticks_per_second: TICKS_PER_SECOND },
    },
  ],
};

export interface EconomicsService {
  url: string;
  dataDir: string;
  service: RunningService;
  admin: Api;
  /** Creates an account through the admin API and returns a new key of it. */
  account(id: string, body?: Record<string, unknown>): Promise<string>;
  verify(): Promise<VerifyReport>;
  close(): Promise<void>;
}

/** A real service (SQLite in its data dir, or the given PostgreSQL) with the priced models and the admin API on. */
export async function startEconomicsService(
  databaseUrl?: string,
  env: Record<string, string> = {},
  models: unknown = PRICED_MODELS,
  options: { clock?: () => number } = {},
): Promise<EconomicsService> {
  const dataDir = await mkdtemp(join(tmpdir(), 'vidgen-econ-'));
  const modelsFile = join(dataDir, 'models.json');
  await writeFile(modelsFile, JSON.stringify(models));
  const config = loadConfig({
    VIDGEN_DATA_DIR: dataDir,
    PORT: '0',
    VIDGEN_ALLOW_PRIVATE_URLS: '1',
    VIDGEN_POLL_MS: '50',
    VIDGEN_MODELS_FILE: modelsFile,
    VIDGEN_ADMIN_TOKEN: ADMIN_TOKEN,
    VIDGEN_WORKER_CONCURRENCY: '1',
    ...(databaseUrl ? { VIDGEN_DATABASE_URL: databaseUrl } : {}),
    ...env,
  });
  const service = await startService(config, createLogger('silent'), undefined, options);
  const location = databaseUrl ?? join(dataDir, 'vidgen.db');
  const admin = api(service.url, ADMIN_TOKEN);
  return {
    url: service.url,
    dataDir,
    service,
    admin,
    async account(id, body = {}) {
      const created = await admin.post('/admin/v1/accounts', { id, ...body });
      if (created.status !== 200) throw new Error(`create account: ${created.status} ${JSON.stringify(created.body)}`);
      const key = await admin.post(`/admin/v1/accounts/${id}/keys`);
      return key.body.key;
    },
    async verify() {
      const db = await openSqlDatabase(location);
      try {
        return await new SqlLedger(db.db).verify();
      } finally {
        await db.close();
      }
    },
    async close() {
      await service.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
