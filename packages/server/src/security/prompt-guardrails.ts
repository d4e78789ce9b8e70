/**
 * The operator's guardrails on prompts, checked before a task is accepted (nothing fetched, held or
 * stored for a refused one): a list of words and patterns, and optionally a moderation endpoint in
 * OpenAI's `/v1/moderations` shape (any compatible server). The shape followed, from OpenAI's API
 * reference and openai-node `src/resources/moderations.ts`: POST `{input, model?}` with a Bearer key;
 * the answer `{id, model, results: [{flagged, categories: {name: bool}, category_scores}]}`.
 */
import { readFile } from 'node:fs/promises';
import { ApiError, InvalidField } from '../errors.ts';

export interface GuardrailSettings {
  /** Refused as whole words, case-insensitively. */
  words: string[];
  /** Regular expressions (case-insensitive) a prompt must not match. */
  patterns: string[];
  moderation?: {
    /** The moderation endpoint itself, e.g. https://api.openai.com/v1/moderations. */
    url: string;
    apiKey?: string;
    model?: string;
    timeoutMs: number;
    /** When the endpoint cannot answer: `closed` refuses the submit (503), `open` lets it through. */
    onError: 'closed' | 'open';
  };
}

/** A refusal: 400 `content_policy_violation`, naming the prompt field, in the dialect's envelope. */
function violation(why: string): InvalidField {
  return new InvalidField('prompt', 'content_policy_violation', (name) => `\`${name}\` ${why}`);
}

export class PromptGuardrails {
  private readonly matchers: RegExp[];

  constructor(
    private readonly settings: GuardrailSettings,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {
    const literal = (w: string) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    this.matchers = [
      ...settings.words.map((w) => new RegExp(`(^|[^\\p{L}\\p{N}])${literal(w)}($|[^\\p{L}\\p{N}])`, 'iu')),
      ...settings.patterns.map((p) => new RegExp(p, 'iu')),
    ];
  }

  async check(_account: unknown, input: { prompt: string }): Promise<void> {
    // The message never repeats the word or pattern: the list is the operator's.
    if (this.matchers.some((m) => m.test(input.prompt)))
      throw violation('contains words this service does not accept.');
    if (this.settings.moderation) await this.moderate(input.prompt, this.settings.moderation);
  }

  private async moderate(prompt: string, m: NonNullable<GuardrailSettings['moderation']>): Promise<void> {
    let flagged: boolean;
    try {
      const res = await this.fetchImpl(m.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(m.apiKey ? { authorization: `Bearer ${m.apiKey}` } : {}) },
        body: JSON.stringify({ input: prompt, ...(m.model ? { model: m.model } : {}) }),
        signal: AbortSignal.timeout(m.timeoutMs),
      });
      if (!res.ok) throw new Error(`moderation answered ${res.status}`);
      const body = (await res.json()) as { results?: Array<{ flagged?: unknown }> };
      if (!Array.isArray(body.results) || body.results.length === 0) throw new Error('no results');
      flagged = body.results.some((r) => r.flagged === true);
    } catch {
      if (m.onError === 'open') return;
      throw new ApiError(
        503,
        'server_error',
        'service_unavailable',
        'The prompt could not be checked right now; try again shortly.',
      );
    }
    if (flagged) throw violation('was flagged by this service’s content policy.');
  }
}

/**
 * VIDGEN_GUARDRAILS_FILE: `{"words": [...], "patterns": [...], "moderation": {"url", "api_key_env"?,
 * "model"?, "timeout_seconds"? (5), "on_error"?: "closed" (default) | "open"}}`. Mistakes stop the start.
 */
export async function loadGuardrails(file: string, env: Record<string, string | undefined>): Promise<PromptGuardrails> {
  const fail = (what: string): never => {
    throw new Error(`${file}: ${what}`);
  };
  const raw = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  const list = (value: unknown, name: string): string[] =>
    value === undefined
      ? []
      : Array.isArray(value) && value.every((v) => typeof v === 'string' && v.length > 0)
        ? value
        : fail(`"${name}" must be a list of non-empty strings`);
  const patterns = list(raw.patterns, 'patterns');
  for (const p of patterns) {
    try {
      new RegExp(p, 'iu');
    } catch {
      fail(`pattern ${JSON.stringify(p)} is not a valid regular expression`);
    }
  }
  const m = raw.moderation as Record<string, unknown> | undefined;
  let moderation: GuardrailSettings['moderation'];
  if (m !== undefined) {
    if (typeof m.url !== 'string' || !/^https?:\/\//.test(m.url)) fail('"moderation.url" must be an http(s) URL');
    const keyEnv = m.api_key_env;
    if (keyEnv !== undefined && (typeof keyEnv !== 'string' || !env[keyEnv]))
      fail('"moderation.api_key_env" must name a set environment variable');
    const onError = m.on_error ?? 'closed';
    if (onError !== 'closed' && onError !== 'open') fail('"moderation.on_error" must be "closed" or "open"');
    const timeout = m.timeout_seconds ?? 5;
    if (typeof timeout !== 'number' || timeout <= 0) fail('"moderation.timeout_seconds" must be a positive number');
    moderation = {
      url: m.url as string,
      apiKey: keyEnv ? env[keyEnv as string] : undefined,
      model: typeof m.model === 'string' ? m.model : undefined,
      timeoutMs: (timeout as number) * 1000,
      onError: onError as 'closed' | 'open',
    };
  }
  return new PromptGuardrails({ words: list(raw.words, 'words'), patterns, moderation });
}
