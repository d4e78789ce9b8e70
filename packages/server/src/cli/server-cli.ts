import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { loadConfig } from '../config.ts';
import { startService } from '../main.ts';
import { openSqlDatabase } from '../store/sql/database.ts';
import { SqlAccountStore } from '../store/sql/sql-account-store.ts';
import { runKeysCommand } from './keys-command.ts';
import { runBillingCommand } from './billing-command.ts';
import { BillingService } from '../billing/billing-service.ts';
import { SqlLedger } from '../billing/sql-ledger.ts';

/** `vidgen-server [--role all|api|worker]` or `vidgen-server keys|accounts|credits|ledger …`. */
export async function runServerCli(argv: string[], env: Record<string, string | undefined>): Promise<void> {
  const roleFlag = argv.indexOf('--role');
  const config = loadConfig(roleFlag >= 0 ? { ...env, VIDGEN_ROLE: argv[roleFlag + 1] } : env);
  if (['keys', 'accounts', 'credits', 'ledger'].includes(argv[0])) {
    await mkdir(config.dataDir, { recursive: true });
    const database = await openSqlDatabase(config.databaseUrl ?? join(config.dataDir, 'vidgen.db'));
    const io = { out: (l: string) => process.stdout.write(`${l}\n`), err: (l: string) => process.stderr.write(`${l}\n`) };
    const accounts = new SqlAccountStore(database.db);
    try {
      process.exitCode = argv[0] === 'keys'
        ? await runKeysCommand(argv.slice(1), accounts, io, Date.now())
        : await runBillingCommand(argv[0], argv.slice(1), new BillingService({ accounts, ledger: new SqlLedger(database.db), clock: Date.now }), io);
    } finally {
      await database.close();
    }
    return;
  }
  const service = await startService(config);
  let closing = false;
  // SIGTERM: stop taking requests and tasks, let running renders finish within the grace
  // period, hand the rest back to the queue. A second signal exits at once.
  const shutdown = (signal: string) => {
    if (closing) process.exit(1);
    closing = true;
    process.stderr.write(`${signal}: shutting down (grace ${config.shutdownGraceSeconds}s)\n`);
    service.close(config.shutdownGraceSeconds * 1000).then(() => process.exit(0), () => process.exit(1));
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}
