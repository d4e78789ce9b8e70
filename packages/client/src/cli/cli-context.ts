import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { NodeVidgenClient } from '../node/node-vidgen-client.ts';
import { DEFAULT_BASE_URL, normalizeBaseURL } from '../vidgen-client.ts';
import type { Profile } from './profile.ts';
import type { Flags } from './cli-args.ts';
import { UsageError } from './exit-codes.ts';

export interface Stream {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

export interface CliIO {
  stdout: Stream;
  stderr: Stream;
  /** For `vidgen login` reading a key from a pipe, or from a terminal without echo (raw mode). */
  stdin?: AsyncIterable<unknown> & { isTTY?: boolean; setRawMode?(raw: boolean): unknown; pause?(): unknown };
}

export interface CliConfig {
  baseURL: string;
  apiKey: string | undefined;
  /** Undefined with --no-journal. */
  journalDir: string | undefined;
}

/** Flags win over the environment, the environment over the saved profile, the profile over defaults. */
export function resolveConfig(
  flags: Flags,
  rawEnv: Record<string, string | undefined>,
  profile: Profile = {},
): CliConfig {
  // `VIDGEN_API_KEY= vidgen …` means unset, as shells treat it.
  const env = Object.fromEntries(Object.entries(rawEnv).filter(([, v]) => v !== ''));
  const journalDir = flags['no-journal']
    ? undefined
    : (flags['journal-dir'] ?? env.VIDGEN_JOURNAL_DIR ?? join(homedir(), '.vidgen', 'journal'));
  const baseURL = flags['base-url'] ?? env.VIDGEN_BASE_URL ?? profile.baseURL ?? DEFAULT_BASE_URL;
  // The profile's key belongs to the profile's server: it is never sent to another one.
  const profileKey =
    profile.baseURL && normalizeBaseURL(profile.baseURL) === normalizeBaseURL(baseURL) ? profile.apiKey : undefined;
  return {
    baseURL,
    apiKey: flags['api-key'] ?? env.VIDGEN_API_KEY ?? profileKey,
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
    readonly env: Record<string, string | undefined> = {},
  ) {}

  get json(): boolean {
    return this.flags.json === true;
  }

  get client(): NodeVidgenClient {
    this.clientInstance ??= this.clientFor({ baseURL: this.config.baseURL, apiKey: this.config.apiKey });
    return this.clientInstance;
  }

  clientFor(target: { baseURL: string; apiKey: string | undefined }): NodeVidgenClient {
    // The CLI resolved key and server itself (flags, env, profile): no key stays no key, and the
    // server's 401 is reported with the CLI's own hint.
    return new NodeVidgenClient({ ...target, apiKey: target.apiKey ?? '', journalDir: this.config.journalDir });
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
