import type { BillingService, AccountView } from '../billing/billing-service.ts';
import type { ModelNames } from '../catalog/model-catalog.ts';
import { ApiError } from '../errors.ts';
import { type CommandIo, didYouMean, option, unknownOption, usageError } from './command-args.ts';
import { describeModels, resolveModelIds } from './model-ids.ts';
import { AccountTable, accountDetails } from './account-table.ts';

/** Each group's usage; `--help` prints its own, a refused command line all of them. */
export const BILLING_USAGE: Record<string, readonly string[]> = {
  accounts: [
    'usage: vidgen-server accounts create <id> [--models <id,id>] [--credits <ticks>] [--rpm <n>] [--max-active <n>] ' +
      '[--balance-alert <ticks>]',
    '       vidgen-server accounts list | show <id> [--json]',
    '       vidgen-server accounts set <id> [--models <id,id>|all] [--metered true|false] [--rpm <n>|none] ' +
      '[--max-active <n>|none] [--balance-alert <ticks>|none]',
  ],
  credits: [
    'usage: vidgen-server credits grant|deduct <id> <ticks> [--reason <text>] [--idempotency-key <key>] ' +
      '[--metered true]',
  ],
  ledger: ['usage: vidgen-server ledger verify | list [--account <id>] [--limit <n>]'],
};
const ALL_USAGE = Object.values(BILLING_USAGE)
  .flat()
  .map((line, i) => (i === 0 ? line : line.replace(/^usage: /, '       ')));
const NOTE = [
  '',
  'Amounts are integer USD ticks (10^-10 USD). Run with the same VIDGEN_DATA_DIR or VIDGEN_DATABASE_URL as the server.',
];
const ALERT_NOTE =
  '--balance-alert: one account.balance_low event when the available balance (balance - held) goes under it.';
const LIST_NOTE =
  'list and show print a table (times in UTC seconds, amounts in USD); --json prints each account as a JSON line.';
const MODELS_NOTE = '--models names ids or aliases of the catalog (VIDGEN_MODELS_FILE, else the built-in one).';

const VERBS: Record<string, readonly string[]> = {
  accounts: ['create', 'list', 'show', 'set'],
  credits: ['grant', 'deduct'],
  ledger: ['verify', 'list'],
};
const OPTIONS: Record<string, readonly string[]> = {
  accounts: ['--models', '--credits', '--rpm', '--max-active', '--metered', '--balance-alert', '--json'],
  credits: ['--reason', '--idempotency-key', '--metered'],
  ledger: ['--account', '--limit'],
};

export interface BillingCommandDeps {
  /** Opens the server's database once the command line is checked. */
  open(): Promise<{ billing: BillingService }>;
  /** The catalog's model names; read only by a command that names models. */
  modelNames(): Promise<ModelNames>;
}

/** `vidgen-server accounts|credits|ledger --help`: needs no database, so it opens none. */
export function printBillingHelp(group: string, io: CommandIo): void {
  for (const line of [
    ...BILLING_USAGE[group],
    ...NOTE,
    ...(group === 'accounts' ? [LIST_NOTE, MODELS_NOTE, ALERT_NOTE] : []),
  ])
    io.out(line);
}

/** `vidgen-server accounts|credits|ledger …`: the admin API's service layer from a shell. Returns the exit code. */
export async function runBillingCommand(
  group: string,
  args: string[],
  deps: BillingCommandDeps,
  io: CommandIo,
): Promise<number> {
  const problem = unknownOption(args, [...OPTIONS[group], '--help', '-h']);
  if (problem) return usageError(io, problem, BILLING_USAGE[group]);
  try {
    return await run(group, args, deps, io);
  } catch (err) {
    if (err instanceof ApiError) {
      io.err(`vidgen-server: ${err.message}`);
      return 1;
    }
    throw err;
  }
}

async function run(group: string, args: string[], deps: BillingCommandDeps, io: CommandIo): Promise<number> {
  // Opened at the first use, after the arguments it needs were checked: a refused command line writes nothing.
  const billing = async () => (await deps.open()).billing;
  const json = args.includes('--json');
  const [verb, ...rest] = args.filter((a) => a !== '--json');
  if (!verb) return usage(io, `a ${group} command is required`);
  if (!VERBS[group].includes(verb))
    return usage(io, `unknown ${group} command '${verb}'.${didYouMean(verb, VERBS[group])}`);
  const name = rest[0] && !rest[0].startsWith('--') ? rest[0] : undefined;
  const show = (view: AccountView) => io.out(JSON.stringify(view));
  if (group === 'accounts') {
    if (verb === 'list') {
      const table = new AccountTable(io.out);
      return listAccounts(await billing(), json ? (page) => page.forEach(show) : (page) => table.page(page));
    }
    if (!name) return usage(io, 'the account id is required');
    if (verb === 'show') {
      const account = await (await billing()).account(name);
      if (json) show(account);
      else for (const line of accountDetails(account)) io.out(line);
      return 0;
    }
    const models = await modelsOption(rest, deps);
    if (typeof models === 'string') return usageError(io, models, []);
    const change = {
      models,
      requestsPerMinute: limit(option(rest, '--rpm')),
      maxActiveTasks: limit(option(rest, '--max-active')),
      balanceAlertUsdTicks: limit(option(rest, '--balance-alert')),
    };
    if (verb === 'create') {
      const credits = option(rest, '--credits');
      return (
        show(
          await (await billing()).createAccount(name, {
            ...change,
            creditsUsdTicks: credits === undefined ? undefined : integer(credits),
          }),
        ),
        0
      );
    }
    if (verb === 'set') {
      const metered = option(rest, '--metered');
      const service = await billing();
      const before = await service.account(name);
      const after = await service.updateAccount(name, {
        ...change,
        metered: metered === undefined ? undefined : metered === 'true',
      });
      const [was, is] = [describeModels(before.models), describeModels(after.models)];
      if (was !== is) io.err(`changed the models of account '${name}': ${was} → ${is}`);
      return (show(after), 0);
    }
  }
  if (group === 'credits' && (verb === 'grant' || verb === 'deduct')) {
    const amount = rest[1];
    if (!name || amount === undefined) return usage(io, 'an account id and an amount of USD ticks are required');
    const ticks = integer(amount) * (verb === 'deduct' ? -1 : 1);
    const result = await (await billing()).credit(
      name,
      ticks,
      option(rest, '--reason') ?? `${verb} from the command line`,
      option(rest, '--idempotency-key'),
      option(rest, '--metered') === 'true',
    );
    io.out(JSON.stringify({ entry: result.entry, replayed: result.replayed, account: result.account }));
    return 0;
  }
  if (group === 'ledger' && verb === 'verify') {
    const report = await (await billing()).verify();
    for (const p of report.problems) io.out(`PROBLEM\t${p.accountId}\t${p.taskId ?? '-'}\t${p.problem}`);
    io.err(
      `${report.accounts} accounts, ${report.entries} entries: ` +
        (report.problems.length === 0 ? 'the ledger verifies' : `${report.problems.length} problems`),
    );
    return report.problems.length === 0 ? 0 : 1;
  }
  if (group === 'ledger' && verb === 'list') {
    const entries = await (await billing()).entries({
      account: option(rest, '--account'),
      limit: integer(option(rest, '--limit') ?? '1000'),
    });
    for (const e of entries) io.out(JSON.stringify(e));
    return 0;
  }
  return usage(io, `'${group} ${verb}' takes other arguments`);
}

function limit(raw: string | undefined): number | null | undefined {
  if (raw === undefined) return undefined;
  return raw === 'none' ? null : integer(raw);
}

function integer(raw: string): number {
  const n = Number(raw);
  if (!Number.isSafeInteger(n))
    throw new ApiError(400, 'invalid_request_error', 'invalid_amount', `"${raw}" is not an integer`);
  return n;
}

/** `--models`: undefined when absent, null for `all`, checked ids, or the problem as a string. */
async function modelsOption(args: string[], deps: BillingCommandDeps): Promise<string[] | null | undefined | string> {
  const raw = option(args, '--models');
  if (raw === undefined || raw === 'all') return raw === 'all' ? null : undefined;
  const resolved = resolveModelIds(raw, await deps.modelNames());
  return resolved.ok ? resolved.ids : resolved.problem;
}

function usage(io: CommandIo, problem: string): number {
  return usageError(io, problem, ALL_USAGE);
}

/** Every account, a page at a time: printed as read, whatever their number. */
async function listAccounts(billing: BillingService, print: (page: AccountView[]) => void): Promise<number> {
  const PAGE = 100;
  for (let after: string | undefined; ; ) {
    const page = await billing.accounts({ limit: PAGE, after });
    print(page);
    if (page.length < PAGE) return 0;
    after = page[page.length - 1].id;
  }
}
