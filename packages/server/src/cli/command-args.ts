import { closest } from '@vidgen/protocol/suggest';

export interface CommandIo {
  out(line: string): void;
  err(line: string): void;
}

/** Exit codes of the operator commands: 2 for a command line that was refused before anything was written. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** The value of `--name value` or `--name=value`. */
export function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i >= 0) return args[i + 1];
  return args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}

export function wantsHelp(args: string[]): boolean {
  return args.includes('--help') || args.includes('-h') || args[0] === 'help';
}

/** The options that take no value. */
const SWITCHES = new Set(['--help', '-h', '--json']);

/**
 * The first option that is not one of `known`, as a message with a guess. A mistyped option must not
 * be ignored: `keys create --model x` would otherwise create a key for every model.
 */
export function unknownOption(args: string[], known: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (!args[i].startsWith('-')) continue;
    const [name, inline] = args[i].split('=', 2);
    if (!known.includes(name)) return `unknown option '${name}'.${didYouMean(name, known)}`;
    // Every option but --help and --json takes a value, which may itself start with a dash.
    if (inline === undefined && !SWITCHES.has(name)) i++;
  }
  return undefined;
}

/** " Did you mean '--models'?" when a known name is within two edits, else nothing. */
export function didYouMean(word: string, known: readonly string[]): string {
  const guess = closest(word, known);
  return guess ? ` Did you mean '${guess}'?` : '';
}

/** Prints the problem and the usage to stderr; a refused command line exits 2. */
export function usageError(io: CommandIo, problem: string, usage: readonly string[]): number {
  io.err(`vidgen-server: ${problem}`);
  for (const line of usage) io.err(line);
  return EXIT_USAGE;
}
