import { parseCliArgs, type ParsedArgs } from './cli-args.ts';
import { CliContext, resolveConfig, type CliIO } from './cli-context.ts';
import { EXIT, UsageError, exitCodeFor } from './exit-codes.ts';
import { COMMAND_HELP, USAGE } from './usage.ts';
import { closest } from '@vidgen/protocol/suggest';
import { profilePath, readProfile } from './profile.ts';
import { generateCommand, submitCommand } from './commands/generate.ts';
import { cancelCommand, downloadCommand, statusCommand, waitCommand } from './commands/task-commands.ts';
import { editCommand, extendCommand } from './commands/variant-commands.ts';
import { forgetCommand, resumeCommand } from './commands/resume.ts';
import { modelsCommand, tasksCommand } from './commands/list-commands.ts';
import { loginCommand, logoutCommand } from './commands/login.ts';
import { webhooksCommand } from './commands/webhooks-command.ts';
import { mcpCommand } from './commands/mcp-command.ts';
import { SubmitOutcomeUnknown, WaitTimeoutError } from '../task-errors.ts';
import { APIConnectionError, APIError, APIUserAbortError } from '../errors.ts';
import { VERSION } from '../version.ts';
import { WaitInterrupted } from './wait-interrupted.ts';

const COMMANDS: Record<string, (ctx: CliContext) => Promise<number>> = {
  generate: generateCommand,
  submit: submitCommand,
  edit: editCommand,
  extend: extendCommand,
  status: statusCommand,
  wait: waitCommand,
  download: downloadCommand,
  cancel: cancelCommand,
  resume: resumeCommand,
  forget: forgetCommand,
  tasks: tasksCommand,
  models: modelsCommand,
  login: loginCommand,
  logout: logoutCommand,
  webhooks: webhooksCommand,
  mcp: mcpCommand,
};

/** Runs one `vidgen` invocation and returns its exit code; never calls process.exit itself. */
export async function runCli(
  argv: string[],
  env: Record<string, string | undefined>,
  io: CliIO,
  signal: AbortSignal = new AbortController().signal,
): Promise<number> {
  let args: ParsedArgs;
  try {
    args = parseCliArgs(argv);
  } catch (err) {
    io.stderr.write(`vidgen: ${(err as Error).message}\n`);
    return EXIT.other;
  }
  if (args.flags.version) {
    io.stdout.write(`vidgen ${VERSION}\n`);
    return EXIT.ok;
  }
  // `vidgen help generate` and `vidgen generate --help` print the same page.
  const topic = args.command === 'help' ? args.positionals[0] : args.command;
  if (args.flags.help || !args.command || args.command === 'help') {
    const page = topic && COMMAND_HELP[topic];
    (args.command || args.flags.help ? io.stdout : io.stderr).write(page || USAGE);
    return args.command || args.flags.help ? EXIT.ok : EXIT.other;
  }
  const command = COMMANDS[args.command];
  if (!command) {
    const guess = closest(args.command, Object.keys(COMMANDS));
    io.stderr.write(
      `vidgen: unknown command '${args.command}'.${guess ? ` Did you mean '${guess}'?` : ''} Run \`vidgen --help\`.\n`,
    );
    return EXIT.other;
  }
  let ctx: CliContext;
  try {
    const profile = args.command === 'login' || args.command === 'logout' ? {} : await readProfile(profilePath(env));
    ctx = new CliContext(args.flags, args.positionals, resolveConfig(args.flags, env, profile), io, signal, env);
  } catch (err) {
    io.stderr.write(`vidgen: ${(err as Error).message}\n`);
    return EXIT.other;
  }
  try {
    return await command(ctx);
  } catch (err) {
    reportError(ctx, err);
    return exitCodeFor(err);
  }
}

function reportError(ctx: CliContext, err: unknown): void {
  // On Ctrl-C the abort is the CLI's own: "Request was aborted." would only repeat what the user did, so the line
  // says what to do next instead.
  const interrupted = err instanceof APIUserAbortError && ctx.signal.aborted;
  const message = interrupted ? interruptedMessage(err) : messageOf(ctx, err);
  const hint = interrupted ? undefined : hintFor(err);
  if (ctx.json)
    ctx.io.stdout.write(`${JSON.stringify({ error: errorJson(err, message), exit_code: exitCodeFor(err) })}\n`);
  ctx.io.stderr.write(interrupted ? `${message}\n` : `vidgen: ${message}${hint ? `\n${hint}` : ''}\n`);
}

function interruptedMessage(err: APIUserAbortError): string {
  if (err instanceof WaitInterrupted) return err.message;
  return 'Interrupted. Submitted tasks go on on the server; `vidgen resume` picks them up.';
}

/** The SDK's messages, with what a person at a terminal needs: which server, which file. */
function messageOf(ctx: CliContext, err: unknown): string {
  if (err instanceof APIConnectionError && !(err instanceof APIUserAbortError)) {
    return (
      `cannot reach the vidgen server at ${ctx.config.baseURL}: ${err.message} Is it running? Set --base-url or ` +
      `VIDGEN_BASE_URL, or run \`vidgen login\`.`
    );
  }
  const fsError = err as NodeJS.ErrnoException;
  if (fsError?.code === 'ENOENT' && fsError.path) return `no such file: ${fsError.path}`;
  if (fsError?.code === 'EACCES' && fsError.path) return `permission denied: ${fsError.path}`;
  if (fsError?.code === 'EISDIR' && fsError.path) return `${fsError.path} is a directory, not a file`;
  return err instanceof Error ? err.message : String(err);
}

function hintFor(err: unknown): string | undefined {
  if (err instanceof UsageError) return undefined;
  if (err instanceof WaitTimeoutError)
    return `The task goes on: \`vidgen wait ${err.taskId}\` or \`vidgen resume\` continues it.`;
  if (err instanceof SubmitOutcomeUnknown)
    return `Idempotency key ${err.idempotencyKey}; \`vidgen resume\` looks it up again. Do not resubmit blindly.`;
  if (err instanceof APIError && err.status === 401)
    return 'Check the key: --api-key, VIDGEN_API_KEY or `vidgen login`.';
  if (err instanceof APIError && err.requestId) return `(request id ${err.requestId})`;
  return undefined;
}

function errorJson(err: unknown, message: string) {
  const e = err as Partial<APIError> & { taskId?: string; idempotencyKey?: string };
  return {
    message,
    type: err instanceof Error ? err.name : 'Error',
    code: e.code ?? null,
    status: e.status ?? null,
    request_id: e.requestId ?? null,
    task_id: e.taskId ?? null,
    idempotency_key: e.idempotencyKey ?? null,
  };
}
