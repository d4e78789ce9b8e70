import { loadConfig, ROLES } from '../config.ts';
import type { OperatorDatabase } from '../composition/operator-tools.ts';
import { type CommandIo, EXIT_OK, EXIT_USAGE, didYouMean, wantsHelp } from './command-args.ts';
import { printKeysHelp, runKeysCommand } from './keys-command.ts';
import { printBillingHelp, runBillingCommand } from './billing-command.ts';
import { MIGRATE_USAGE, runMigrateCommand } from './migrate-command.ts';
import { SERVER_VERSION, serverUsage } from './server-usage.ts';
import { releaseStartupMemory } from './release-startup-memory.ts';
import { startupText } from './startup-text.ts';

type Env = Record<string, string | undefined>;

const OPERATOR_COMMANDS = ['keys', 'accounts', 'credits', 'ledger', 'migrate'];
const OPTIONS = ['--role', '--help', '-h', '--version'];

/** What one command line asks for. */
export type Invocation =
  | { kind: 'serve'; role?: string }
  | { kind: 'command'; name: string; args: string[] }
  | { kind: 'help'; topic?: string }
  | { kind: 'version' }
  | { kind: 'refused'; problem: string };

/**
 * Reads the options before the command. A word or option it does not know is refused, never
 * ignored: ignoring one (a mistyped `--help`, say) would start a server and create a key.
 */
export function parseInvocation(argv: string[]): Invocation {
  let role: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('-')) {
      if (arg === 'help') return { kind: 'help', topic: argv[i + 1] };
      if (OPERATOR_COMMANDS.includes(arg)) return { kind: 'command', name: arg, args: argv.slice(i + 1) };
      return {
        kind: 'refused',
        problem: `unknown command '${arg}'.${didYouMean(arg, [...OPERATOR_COMMANDS, 'help'])}`,
      };
    }
    const [name, inline] = arg.split(/=(.*)/s, 2);
    if (name === '--help' || name === '-h') return { kind: 'help' };
    if (name === '--version') return { kind: 'version' };
    if (name !== '--role') return { kind: 'refused', problem: `unknown option '${name}'.${didYouMean(name, OPTIONS)}` };
    role = inline ?? argv[++i];
    if (!(ROLES as readonly string[]).includes(role)) {
      return {
        kind: 'refused',
        problem:
          `--role must be ${ROLES.slice(0, -1).join(', ')} or ${ROLES.at(-1)}` +
          `${role === undefined ? '' : `, got '${role}'`}.`,
      };
    }
  }
  return { kind: 'serve', role };
}

/** `vidgen-server …`: starts the service, or runs one operator command and sets the exit code. */
export async function runServerCli(argv: string[], env: Env): Promise<void> {
  const io: CommandIo = { out: (l) => process.stdout.write(`${l}\n`), err: (l) => process.stderr.write(`${l}\n`) };
  const invocation = parseInvocation(argv);
  if (invocation.kind === 'serve')
    return serve(invocation.role === undefined ? env : { ...env, VIDGEN_ROLE: invocation.role });
  process.exitCode = await answer(invocation, env, io);
}

async function answer(invocation: Exclude<Invocation, { kind: 'serve' }>, env: Env, io: CommandIo): Promise<number> {
  if (invocation.kind === 'version') return (io.out(`vidgen-server ${SERVER_VERSION}`), EXIT_OK);
  if (invocation.kind === 'refused') {
    io.err(`vidgen-server: ${invocation.problem} Run \`vidgen-server --help\`.`);
    return EXIT_USAGE;
  }
  if (invocation.kind === 'help') {
    if (invocation.topic === undefined) {
      for (const line of serverUsage()) io.out(line);
      return EXIT_OK;
    }
    if (!OPERATOR_COMMANDS.includes(invocation.topic))
      return answer(
        {
          kind: 'refused',
          problem: `no help on '${invocation.topic}'.${didYouMean(invocation.topic, OPERATOR_COMMANDS)}`,
        },
        env,
        io,
      );
    return answer({ kind: 'command', name: invocation.topic, args: ['--help'] }, env, io);
  }
  const { name, args } = invocation;
  // Help needs no database: asking for it must not create a data dir in the wrong place.
  if (wantsHelp(args)) return (printCommandHelp(name, io), EXIT_OK);
  // Loaded only here: help, version and refusals answer without loading the service's modules.
  const { operatorTools } = await import('../composition/operator-tools.ts');
  const tools = operatorTools(loadConfig(env));
  if (name === 'migrate') return runMigrateCommand(args, tools, io);
  let opened: OperatorDatabase | undefined;
  const open = async () => (opened ??= await tools.open());
  try {
    return name === 'keys'
      ? await runKeysCommand(args, { modelNames: tools.modelNames, open, now: Date.now() }, io)
      : await runBillingCommand(name, args, { modelNames: tools.modelNames, open }, io);
  } finally {
    await opened?.close();
  }
}

function printCommandHelp(name: string, io: CommandIo): void {
  if (name === 'keys') return printKeysHelp(io);
  if (name !== 'migrate') return printBillingHelp(name, io);
  for (const line of MIGRATE_USAGE) io.out(line);
}

async function serve(env: Env): Promise<void> {
  const config = loadConfig(env);
  const { startService } = await import('../main.ts');
  const service = await startService(config);
  for (const line of startupText(config, service.url, service.bootstrapKey)) process.stderr.write(`${line}\n`);
  releaseStartupMemory();
  let closing = false;
  // SIGTERM: stop taking requests and tasks, let running renders finish within the grace
  // period, hand the rest back to the queue. A second signal exits at once.
  const shutdown = (signal: string) => {
    if (closing) process.exit(1);
    closing = true;
    process.stderr.write(`${signal}: shutting down (grace ${config.shutdownGraceSeconds}s)\n`);
    service.close(config.shutdownGraceSeconds * 1000).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}
