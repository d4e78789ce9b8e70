import { parseArgs } from 'node:util';
import { UsageError } from './exit-codes.ts';

/** Every flag of every command; a command ignores the ones it has no use for. */
const OPTIONS = {
  'base-url': { type: 'string' },
  'api-key': { type: 'string' },
  'journal-dir': { type: 'string' },
  'no-journal': { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
  video: { type: 'string' },
  model: { type: 'string', short: 'm' },
  prompt: { type: 'string', short: 'p' },
  image: { type: 'string', short: 'i', multiple: true },
  'last-frame': { type: 'string' },
  keyframe: { type: 'string', multiple: true },
  reference: { type: 'string', multiple: true },
  'reference-audio': { type: 'string', multiple: true },
  duration: { type: 'string', short: 'd' },
  ratio: { type: 'string', short: 'r' },
  seed: { type: 'string' },
  audio: { type: 'boolean' },
  output: { type: 'string', short: 'o' },
  variant: { type: 'string' },
  family: { type: 'string' },
  'max-wait': { type: 'string' },
  interval: { type: 'string' },
  'long-poll': { type: 'string' },
  'download-timeout': { type: 'string' },
  'no-download': { type: 'boolean' },
  status: { type: 'string' },
  limit: { type: 'string' },
  after: { type: 'string' },
  local: { type: 'boolean' },
  'forward-to': { type: 'string' },
  port: { type: 'string' },
  events: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
} as const;

export type Flags = {
  [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K] extends { multiple: true }
    ? string[]
    : (typeof OPTIONS)[K]['type'] extends 'boolean'
      ? boolean
      : string;
};

export interface ParsedArgs {
  command: string | undefined;
  positionals: string[];
  flags: Flags;
}

export function parseCliArgs(argv: string[]): ParsedArgs {
  try {
    const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
    return { command: positionals[0], positionals: positionals.slice(1), flags: values as Flags };
  } catch (err) {
    throw new UsageError(`${(err as Error).message}. Run \`vidgen --help\`.`);
  }
}

/** A flag in seconds, as milliseconds. */
export function secondsFlag(flags: Flags, name: 'max-wait' | 'interval' | 'download-timeout'): number | undefined {
  const n = numberFlag(flags, name);
  return n === undefined ? undefined : Math.round(n * 1000);
}

export function numberFlag(flags: Flags, name: keyof Flags): number | undefined {
  const raw = flags[name];
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (typeof raw !== 'string' || raw.trim() === '' || !Number.isFinite(value) || value < 0) {
    throw new UsageError(`--${name} must be a non-negative number, got '${String(raw)}'.`);
  }
  return value;
}

export function requireFlag(flags: Flags, name: 'model' | 'prompt' | 'output' | 'video'): string {
  const value = flags[name];
  if (!value) throw new UsageError(`--${name} is required.`);
  return value;
}

export function familyFlag(flags: Flags): 'A' | 'B' | undefined {
  const raw = flags.family?.toUpperCase();
  if (raw === undefined) return undefined;
  if (raw !== 'A' && raw !== 'B') throw new UsageError(`--family must be A or B, got '${flags.family}'.`);
  return raw;
}
