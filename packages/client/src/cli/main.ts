import { parseCliArgs, type ParsedArgs } from './cli-args.ts';
import { CliContext, resolveConfig, type CliIO } from './cli-context.ts';
import { EXIT, UsageError, exitCodeFor } from './exit-codes.ts';
import { USAGE } from './usage.ts';
import { generateCommand, submitCommand } from './commands/generate.ts';
import { downloadCommand, statusCommand, waitCommand } from './commands/task-commands.ts';
import { forgetCommand, resumeCommand } from './commands/resume.ts';
import { modelsCommand, tasksCommand } from './commands/list-commands.ts';
import { SubmitOutcomeUnknown, WaitTimeoutError } from '../task-errors.ts';
import { APIError, APIUserAbortError } from '../errors.ts';

const COMMANDS: Record<string, (ctx: CliContext) => Promise<number>> = {
  generate: generateCommand,
  submit: submitCommand,
  status: statusCommand,
  wait: waitCommand,
  download: downloadCommand,
  resume: resumeCommand,
  forget: forgetCommand,
  tasks: tasksCommand,
  models: modelsCommand,
};

/** Runs one `vidgen` invocation and returns its exit code; never calls process.exit itself. */
export async function runCli(argv: string[], env: Record<string, string | undefined>, io: CliIO, signal: AbortSignal = new AbortController().signal): Promise<number> {
  let args: ParsedArgs;
  try {
    args = parseCliArgs(argv);
  } catch (err) {
    io.stderr.write(`vidgen: ${(err as Error).message}\n`);
    return EXIT.other;
  }
  if (args.flags.help || !args.command || args.command === 'help') {
    (args.command || args.flags.help ? io.stdout : io.stderr).write(USAGE);
    return args.command || args.flags.help ? EXIT.ok : EXIT.other;
  }
  const command = COMMANDS[args.command];
  if (!command) {
    io.stderr.write(`vidgen: unknown command '${args.command}'. Run \`vidgen --help\`.\n`);
    return EXIT.other;
  }
  const ctx = new CliContext(args.flags, args.positionals, resolveConfig(args.flags, env), io, signal);
  try {
    return await command(ctx);
  } catch (err) {
    reportError(ctx, err);
    return exitCodeFor(err);
  }
}

function reportError(ctx: CliContext, err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  const hint = hintFor(err);
  if (ctx.json) ctx.io.stdout.write(`${JSON.stringify({ error: errorJson(err, message), exit_code: exitCodeFor(err) })}\n`);
  ctx.io.stderr.write(`vidgen: ${message}${hint ? `\n${hint}` : ''}\n`);
}

function hintFor(err: unknown): string | undefined {
  if (err instanceof UsageError) return undefined;
  if (err instanceof WaitTimeoutError) return `The task goes on: \`vidgen wait ${err.taskId}\` or \`vidgen resume\` continues it.`;
  if (err instanceof SubmitOutcomeUnknown) return `Idempotency key ${err.idempotencyKey}; \`vidgen resume\` looks it up again. Do not resubmit blindly.`;
  if (err instanceof APIUserAbortError) return 'Interrupted. Submitted tasks go on on the server; `vidgen resume` picks them up.';
  if (err instanceof APIError && err.requestId) return `(request id ${err.requestId})`;
  return undefined;
}

function errorJson(err: unknown, message: string) {
  const e = err as Partial<APIError> & { taskId?: string; idempotencyKey?: string };
  return { message, type: err instanceof Error ? err.name : 'Error', code: e.code ?? null, status: e.status ?? null, request_id: e.requestId ?? null, task_id: e.taskId ?? null, idempotency_key: e.idempotencyKey ?? null };
}
