import { mkdir } from 'node:fs/promises';
import type { Config } from '../config.ts';
import { catalogModelNames, type ModelNames } from '../catalog/model-catalog.ts';
import { openSqlDatabase } from '../store/sql/database.ts';
import { LATEST_MIGRATION } from '../store/sql/migrations.ts';
import { SqlAccountStore } from '../store/sql/sql-account-store.ts';
import { SqlLedger } from '../billing/sql-ledger.ts';
import { BillingService } from '../billing/billing-service.ts';
import { balanceLowOutbox } from '../webhooks/balance-low-outbox.ts';
import { databaseLocation, readCatalog } from './service-files.ts';

/** What the operator commands (`vidgen-server keys|accounts|credits|ledger`) work on. */
export interface OperatorTools {
  /** The names of the catalog the server serves. */
  modelNames(): Promise<ModelNames>;
  /**
   * Opens the server's database. Commands call it only once their arguments are checked, so that a
   * refused command line writes nothing, not even an empty database in the wrong place.
   */
  open(): Promise<OperatorDatabase>;
  /** Brings the schema up to date and closes: `vidgen-server migrate`, a deployment's migrations Job. */
  migrate(): Promise<{ database: string; applied: readonly string[]; latest: string }>;
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
    modelNames: async () =>
      catalogModelNames(
        await readCatalog(config),
        config.modelsFile ? `the catalog in ${config.modelsFile}` : 'the built-in catalog',
      ),
    async open() {
      const location = databaseLocation(config);
      if (!config.databaseUrl) await mkdir(config.dataDir, { recursive: true });
      const database = await openSqlDatabase(location);
      const accounts = new SqlAccountStore(database.db);
      return {
        accounts,
        // A deduction from the shell that takes an account under its balance alert sends the alert
        // as the server would: written here, delivered by the server's workers.
        billing: new BillingService({
          accounts,
          ledger: new SqlLedger(
            database.db,
            balanceLowOutbox({ maxAttempts: config.webhooks.maxAttempts, operatorUrl: config.operatorWebhook?.url }),
          ),
          clock: Date.now,
        }),
        database: describeDatabase(config),
        close: () => database.close(),
      };
    },
    async migrate() {
      if (!config.databaseUrl) await mkdir(config.dataDir, { recursive: true });
      const database = await openSqlDatabase(databaseLocation(config));
      await database.close();
      return { database: describeDatabase(config), applied: database.migrated, latest: LATEST_MIGRATION };
    },
  };
}

function describeDatabase(config: Config): string {
  return config.databaseUrl ? withoutPassword(config.databaseUrl) : databaseLocation(config);
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
