import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { NodeVidgenClient } from '../node/node-vidgen-client.ts';
import { DEFAULT_BASE_URL } from '../vidgen-client.ts';
import type { Flags } from './cli-args.ts';
import { UsageError } from './exit-codes.ts';

export interface Stream {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

export interface CliIO {
  stdout: Stream;
  stderr: Stream;
}

export interface CliConfig {
  baseURL: string;
  apiKey: string | undefined;
  /** Undefined with --no-journal. */
  journalDir: string | undefined;
}

/** Flags win over the environment; the environment wins over defaults. */
export function resolveConfig(flags: Flags, env: Record<string, string | undefined>): CliConfig {
  const journalDir = flags['no-journal'] ? undefined : flags['journal-dir'] ?? env.VIDGEN_JOURNAL_DIR ?? join(homedir(), '.vidgen', 'journal');
  return {
    baseURL: flags['base-url'] ?? env.VIDGEN_BASE_URL ?? DEFAULT_BASE_URL,
    apiKey: flags['api-key'] ?? env.VIDGEN_API_KEY,
    journalDir: journalDir ? resolve(journalDir) : undefined,
  };
}

/** What every command gets. */
export class CliContext {
  private clientInstance: NodeVidgenClient | undefined;

  constructor(
    readonly flags: Flags,
    readonly positionals: string[],
    readonly config: CliConfig,
    readonly io: CliIO,
    readonly signal: AbortSignal,
  ) {}

  get json(): boolean {
    return this.flags.json === true;
  }

  get client(): NodeVidgenClient {
    this.clientInstance ??= new NodeVidgenClient({ baseURL: this.config.baseURL, apiKey: this.config.apiKey, journalDir: this.config.journalDir });
    return this.clientInstance;
  }

  /** Human-oriented notes go to stderr, so stdout stays clean for the result. */
  note(line: string): void {
    this.io.stderr.write(`${line}\n`);
  }

  /** The command's result: JSON with --json, text otherwise. */
  result(value: unknown, text: string): void {
    this.io.stdout.write(this.json ? `${JSON.stringify(value)}\n` : `${text}\n`);
  }

  positional(name: string): string {
    const value = this.positionals[0];
    if (!value) throw new UsageError(`missing <${name}>.`);
    return value;
  }
}
