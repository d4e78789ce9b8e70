import type { AccountStore } from '../store/account-store.ts';
import { generateApiKey } from '../security/api-keys.ts';

export interface CommandIo {
  out(line: string): void;
  err(line: string): void;
}

const USAGE = [
  'usage: vidgen-server keys create --account <name> [--models <id,id>]',
  '       vidgen-server keys list',
  '       vidgen-server keys revoke <key-id>',
];

/** `vidgen-server keys …`: operator commands on the accounts store. Returns the exit code. */
export async function runKeysCommand(args: string[], accounts: AccountStore, io: CommandIo, now: number): Promise<number> {
  const [verb, ...rest] = args;
  if (verb === 'create') {
    const account = option(rest, '--account');
    if (!account) return usage(io, '--account is required');
    const modelsArg = option(rest, '--models');
    const models = modelsArg === undefined ? undefined : modelsArg.split(',').map((m) => m.trim()).filter(Boolean);
    const created = await createKeyFor(accounts, account, models, now);
    io.out(created.secret);
    io.err(`created key ${created.id} for account '${account}'; it is shown only this once`);
    return 0;
  }
  if (verb === 'list') {
    for (const key of await accounts.listKeys()) {
      const state = key.revokedAt === null ? 'active' : `revoked ${new Date(key.revokedAt).toISOString()}`;
      io.out(`${key.id}\t${key.accountName}\t${key.prefix}…\t${new Date(key.createdAt).toISOString()}\t${state}`);
    }
    return 0;
  }
  if (verb === 'revoke') {
    const id = rest[0];
    if (!id) return usage(io, 'the key id is required');
    if (!(await accounts.revokeKey(id, now))) {
      io.err(`no active key with id ${id}`);
      return 1;
    }
    io.err(`revoked ${id}`);
    return 0;
  }
  return usage(io, verb ? `unknown keys command "${verb}"` : 'a keys command is required');
}

/** Creates the account when needed (with `models` as its entitlement) and a new key for it. */
export async function createKeyFor(accounts: AccountStore, accountName: string, models: string[] | undefined, now: number) {
  const account = await accounts.ensureAccount(accountName, models, now);
  const key = generateApiKey();
  await accounts.createKey({ id: key.id, accountId: account.id, hash: key.hash, prefix: key.prefix, createdAt: now });
  return { id: key.id, secret: key.secret, account };
}

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i >= 0) return args[i + 1];
  const inline = args.find((a) => a.startsWith(`${name}=`));
  return inline?.slice(name.length + 1);
}

function usage(io: CommandIo, problem: string): number {
  io.err(`vidgen-server: ${problem}`);
  for (const line of USAGE) io.err(line);
  return 2;
}
