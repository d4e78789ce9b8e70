import type { BillingService, AccountView } from '../billing/billing-service.ts';
import { ApiError } from '../errors.ts';
import type { CommandIo } from './keys-command.ts';

const USAGE = [
  'usage: vidgen-server accounts create <id> [--models <id,id>] [--credits <ticks>] [--rpm <n>] [--max-active <n>]',
  '       vidgen-server accounts list | show <id>',
  '       vidgen-server accounts set <id> [--models <id,id>|all] [--metered true|false] [--rpm <n>|none] [--max-active <n>|none]',
  '       vidgen-server credits grant|deduct <id> <ticks> [--reason <text>] [--idempotency-key <key>]',
  '       vidgen-server ledger verify | list [--account <id>] [--limit <n>]',
];

/** `vidgen-server accounts|credits|ledger …`: the admin API's service layer from a shell. Returns the exit code. */
export async function runBillingCommand(group: string, args: string[], billing: BillingService, io: CommandIo): Promise<number> {
  try {
    return await run(group, args, billing, io);
  } catch (err) {
    if (err instanceof ApiError) {
      io.err(`vidgen-server: ${err.message}`);
      return 1;
    }
    throw err;
  }
}

async function run(group: string, args: string[], billing: BillingService, io: CommandIo): Promise<number> {
  const [verb, ...rest] = args;
  const name = rest[0] && !rest[0].startsWith('--') ? rest[0] : undefined;
  const show = (view: AccountView) => io.out(JSON.stringify(view));
  if (group === 'accounts') {
    if (verb === 'list') return (await billing.accounts()).forEach(show), 0;
    if (!name) return usage(io, 'the account id is required');
    if (verb === 'show') return show(await billing.account(name)), 0;
    const models = option(rest, '--models');
    const change = {
      models: models === undefined ? undefined : models === 'all' ? null : models.split(',').map((m) => m.trim()).filter(Boolean),
      requestsPerMinute: limit(option(rest, '--rpm')),
      maxActiveTasks: limit(option(rest, '--max-active')),
    };
    if (verb === 'create') {
      const credits = option(rest, '--credits');
      return show(await billing.createAccount(name, { ...change, creditsUsdTicks: credits === undefined ? undefined : integer(credits) })), 0;
    }
    if (verb === 'set') {
      const metered = option(rest, '--metered');
      return show(await billing.updateAccount(name, { ...change, metered: metered === undefined ? undefined : metered === 'true' })), 0;
    }
  }
  if (group === 'credits' && (verb === 'grant' || verb === 'deduct')) {
    const amount = rest[1];
    if (!name || amount === undefined) return usage(io, 'an account id and an amount of USD ticks are required');
    const ticks = integer(amount) * (verb === 'deduct' ? -1 : 1);
    const result = await billing.credit(name, ticks, option(rest, '--reason') ?? `${verb} from the command line`, option(rest, '--idempotency-key'));
    io.out(JSON.stringify({ entry: result.entry, replayed: result.replayed, account: result.account }));
    return 0;
  }
  if (group === 'ledger' && verb === 'verify') {
    const report = await billing.verify();
    for (const p of report.problems) io.out(`PROBLEM\t${p.accountId}\t${p.taskId ?? '-'}\t${p.problem}`);
    io.err(`${report.accounts} accounts, ${report.entries} entries: ${report.problems.length === 0 ? 'the ledger verifies' : `${report.problems.length} problems`}`);
    return report.problems.length === 0 ? 0 : 1;
  }
  if (group === 'ledger' && verb === 'list') {
    const entries = await billing.entries({ account: option(rest, '--account'), limit: integer(option(rest, '--limit') ?? '1000') });
    for (const e of entries) io.out(JSON.stringify(e));
    return 0;
  }
  return usage(io, verb ? `unknown ${group} command "${verb}"` : `a ${group} command is required`);
}

function limit(raw: string | undefined): number | null | undefined {
  if (raw === undefined) return undefined;
  return raw === 'none' ? null : integer(raw);
}

function integer(raw: string): number {
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw new ApiError(400, 'invalid_request_error', 'invalid_amount', `"${raw}" is not an integer`);
  return n;
}

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i >= 0) return args[i + 1];
  return args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}

function usage(io: CommandIo, problem: string): number {
  io.err(`vidgen-server: ${problem}`);
  for (const line of USAGE) io.err(line);
  return 2;
}
