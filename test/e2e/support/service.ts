import { mkdtemp, rm } from 'node:fs/promises';
import type { DestinationStream } from 'pino';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../packages/server/src/config.ts';
import { startService, type RunningService } from '../../../packages/server/src/main.ts';
import type { Dialect } from '../../../packages/server/src/api/dialects/dialect.ts';
import { createLogger } from '../../../packages/server/src/logging.ts';
import { openSqlDatabase } from '../../../packages/server/src/store/sql/database.ts';
import { SqlAccountStore } from '../../../packages/server/src/store/sql/sql-account-store.ts';
import { createKeyFor } from '../../../packages/server/src/security/create-key.ts';
import { revokeKey } from './keys.ts';

export interface TestService {
  url: string;
  dataDir: string;
  service: RunningService;
  /** Creates an account (if needed) with a new key and returns the key. */
  createKey(account: string, models?: string[]): Promise<string>;
  revokeKeyOf(secret: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * A real service on 127.0.0.1:0 with its own data dir and database, configured like
 * `npm start` except where `env` says otherwise. Private URLs are allowed so tests can serve
 * images from loopback. With `logTo`, the service logs there at info (else nothing).
 */
export async function startTestService(
  env: Record<string, string> = {},
  dialects?: readonly Dialect[],
  logTo?: DestinationStream,
): Promise<TestService> {
  const dataDir = await mkdtemp(join(tmpdir(), 'vidgen-e2e-'));
  const config = loadConfig({
    VIDGEN_DATA_DIR: dataDir,
    PORT: '0',
    VIDGEN_ALLOW_PRIVATE_URLS: '1',
    VIDGEN_POLL_MS: '50',
    ...env,
  });
  const service = await startService(
    config,
    createLogger(env.VIDGEN_LOG_LEVEL ?? (logTo ? 'info' : 'silent'), logTo),
    dialects,
  );
  // Keys go where the service keeps its accounts: PostgreSQL when the env names one.
  const keysDb = await openSqlDatabase(env.VIDGEN_DATABASE_URL ?? join(dataDir, 'vidgen.db'));
  const accounts = new SqlAccountStore(keysDb.db);
  return {
    url: service.url!,
    dataDir,
    service,
    createKey: async (account, models) => (await createKeyFor(accounts, account, models, Date.now())).secret,
    revokeKeyOf: (secret) => revokeKey(accounts, secret),
    async close() {
      await service.close();
      await keysDb.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
