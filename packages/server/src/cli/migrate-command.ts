import type { CommandIo } from './command-args.ts';
import { EXIT_FAILED, EXIT_OK, usageError } from './command-args.ts';

export const MIGRATE_USAGE: readonly string[] = [
  'usage: vidgen-server migrate',
  '',
  "Brings the server's database (VIDGEN_DATABASE_URL, else SQLite in VIDGEN_DATA_DIR) to the latest schema and",
  'exits. Every process migrates at start too; run this first when several start at once (a Kubernetes Job, an',
  'upgrade) so that the roll-out starts on the new schema. An unreachable database is retried for a minute.',
];

export interface MigrateCommandDeps {
  /** Migrates, then says where the schema stands. */
  migrate(): Promise<{ database: string; applied: readonly string[]; latest: string }>;
}

/** `vidgen-server migrate`: returns the exit code; the database's password never appears in what it prints. */
export async function runMigrateCommand(args: string[], deps: MigrateCommandDeps, io: CommandIo): Promise<number> {
  if (args.length > 0) return usageError(io, `migrate takes no arguments, got '${args[0]}'`, MIGRATE_USAGE);
  try {
    const { database, applied, latest } = await deps.migrate();
    const what = applied.length === 0 ? 'already up to date' : `applied ${applied.length}: ${applied.join(', ')}`;
    io.out(`migrate: ${database}: ${what}; schema at ${latest}`);
    return EXIT_OK;
  } catch (err) {
    io.err(`vidgen-server migrate: ${(err as Error).message}`);
    return EXIT_FAILED;
  }
}
