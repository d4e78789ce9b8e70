import type { AccountStore } from '../store/account-store.ts';
import type { ModelNames } from '../catalog/model-catalog.ts';
import { createKeyFor } from '../security/create-key.ts';
import { type CommandIo, EXIT_FAILED, EXIT_OK, didYouMean, option, unknownOption, usageError } from './command-args.ts';
import { describeModels, resolveModelIds } from './model-ids.ts';

export const KEYS_USAGE = [
  'usage: vidgen-server keys create --account <name> [--models <id,id>]',
  '       vidgen-server keys list',
  '       vidgen-server keys revoke <key-id>',
  '',
  '  create   creates the account when it is new and a key for it; prints the key, and only the key.',
  '           --models sets the model ids the account may use (default: every model in the catalog);',
  '           they must be ids or aliases of the catalog (VIDGEN_MODELS_FILE, else the built-in one).',
  '           For an existing account, --models replaces its models and says how they changed.',
  "  list     every key with its account, state and the account's models.",
  '  revoke   ends a key; a running server stops accepting it within 2 seconds.',
  '',
  "Keys live in the server's database: run these commands with the same VIDGEN_DATA_DIR or",
  'VIDGEN_DATABASE_URL as the server.',
];

const OPTIONS: Record<string, readonly string[]> = {
  create: ['--account', '--models', '--help', '-h'],
  list: ['--help', '-h'],
  revoke: ['--help', '-h'],
};

export interface KeysCommandDeps {
  /** The catalog's model names; read only by a command that names models. */
  modelNames(): Promise<ModelNames>;
  /** Opens the accounts store once the command line is checked; `database` names it in messages. */
  open(): Promise<{ accounts: AccountStore; database: string }>;
  now: number;
}

/** `vidgen-server keys --help`: needs no database, so it opens none. */
export function printKeysHelp(io: CommandIo): void {
  for (const line of KEYS_USAGE) io.out(line);
}

/** `vidgen-server keys …`: operator commands on the accounts store. Returns the exit code. */
export async function runKeysCommand(args: string[], deps: KeysCommandDeps, io: CommandIo): Promise<number> {
  const [verb, ...rest] = args;
  if (!verb) return usageError(io, 'a keys command is required', KEYS_USAGE);
  if (!OPTIONS[verb])
    return usageError(io, `unknown keys command '${verb}'.${didYouMean(verb, Object.keys(OPTIONS))}`, KEYS_USAGE);
  const problem = unknownOption(rest, OPTIONS[verb]);
  if (problem) return usageError(io, problem, KEYS_USAGE);
  if (verb === 'create') return create(rest, deps, io);
  if (verb === 'list') return list(await deps.open(), io);
  const id = rest[0];
  if (!id) return usageError(io, 'the key id is required', KEYS_USAGE);
  const { accounts, database } = await deps.open();
  if (!(await accounts.revokeKey(id, deps.now))) {
    io.err(`vidgen-server: no active key with id ${id} in ${database}`);
    return EXIT_FAILED;
  }
  io.err(`revoked ${id}`);
  return EXIT_OK;
}

async function create(args: string[], deps: KeysCommandDeps, io: CommandIo): Promise<number> {
  const account = option(args, '--account');
  if (!account) return usageError(io, '--account is required', KEYS_USAGE);
  const modelsArg = option(args, '--models');
  let models: string[] | undefined;
  if (modelsArg !== undefined) {
    // Checked before anything is written: a refused command leaves the database as it was.
    const resolved = resolveModelIds(modelsArg, await deps.modelNames());
    if (!resolved.ok) return usageError(io, resolved.problem, []);
    for (const note of resolved.notes) io.err(note);
    models = resolved.ids;
  }
  const { accounts, database } = await deps.open();
  const before = await accounts.findAccountByName(account);
  const created = await createKeyFor(accounts, account, models, deps.now);
  const after = describeModels(created.account.models);
  if (!before) io.err(`created account '${account}' with models: ${after}`);
  else if (describeModels(before.models) !== after)
    io.err(`changed the models of account '${account}': ${describeModels(before.models)} → ${after}`);
  else io.err(`account '${account}' keeps its models: ${after}`);
  io.out(created.secret);
  io.err(`created key ${created.id} for account '${account}' in ${database}; it is shown only this once`);
  return EXIT_OK;
}

async function list(
  { accounts, database }: { accounts: AccountStore; database: string },
  io: CommandIo,
): Promise<number> {
  const keys = await accounts.listKeys();
  const models = new Map((await accounts.listAccounts()).map((a) => [a.id, describeModels(a.models)]));
  io.out(['KEY ID', 'ACCOUNT', 'PREFIX', 'CREATED', 'STATE', 'MODELS'].join('\t'));
  for (const key of keys) {
    const state = key.revokedAt === null ? 'active' : `revoked ${new Date(key.revokedAt).toISOString()}`;
    io.out(
      [
        key.id,
        key.accountName,
        `${key.prefix}…`,
        new Date(key.createdAt).toISOString(),
        state,
        models.get(key.accountId) ?? '',
      ].join('\t'),
    );
  }
  if (keys.length === 0) io.err(`no keys in ${database}`);
  return EXIT_OK;
}
