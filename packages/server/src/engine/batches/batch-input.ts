import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { LineError } from '../../domain/batch.ts';

/**
 * One non-empty line of a batch's input file: its index among them, its number in the file, its
 * text. Parsed where it is used (`parseLine`): a chunk of lines waiting their turn is held as text,
 * which costs the heap far less than the objects parsed from it.
 */
export interface InputLine {
  index: number;
  number: number;
  text: string;
}

/**
 * The non-empty lines of a JSONL stream, one at a time (a batch file may be 200 MB: never whole),
 * from the `from`-th on: those before are counted, not parsed.
 */
export async function* inputLines(source: Readable, from = 0): AsyncGenerator<InputLine> {
  const lines = createInterface({ input: source, crlfDelay: Number.POSITIVE_INFINITY });
  let index = -1;
  let number = 0;
  try {
    for await (const text of lines) {
      number++;
      if (text.trim() === '') continue;
      if (++index < from) continue;
      yield { index, number, text };
    }
  } finally {
    lines.close();
    source.destroy();
  }
}

/** The line's JSON object; undefined when it is not one. */
export function parseLine(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The longest `custom_id` taken (OpenAI's ids are free text; this bounds what a line record keeps). */
export const MAX_CUSTOM_ID_CHARS = 512;

/** A line's `custom_id`, when it has a usable one. */
export function customIdOf(value: Record<string, unknown> | undefined): string | undefined {
  const id = value?.custom_id;
  return typeof id === 'string' && id !== '' && id.length <= MAX_CUSTOM_ID_CHARS ? id : undefined;
}

/**
 * A line's envelope, `{custom_id, method: "POST", url, body}` with `url` the batch's endpoint:
 * its body, or why the line is refused before its endpoint sees it.
 */
export function checkEnvelope(
  value: Record<string, unknown>,
  endpoint: string,
): { body: Record<string, unknown> } | { error: LineError } {
  const refuse = (code: string, param: string, message: string) => ({ error: { code, message, param } });
  if (value.custom_id === undefined) return refuse('missing_field', 'custom_id', '`custom_id` is required.');
  if (customIdOf(value) === undefined)
    return refuse(
      'invalid_value',
      'custom_id',
      `\`custom_id\` must be a non-empty string of at most ${MAX_CUSTOM_ID_CHARS} characters.`,
    );
  if (value.method !== 'POST') return refuse('invalid_value', 'method', "`method` must be 'POST'.");
  if (value.url !== endpoint)
    return refuse('invalid_value', 'url', `\`url\` must be the batch's endpoint '${endpoint}'.`);
  const body = value.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    return refuse(body === undefined ? 'missing_field' : 'invalid_type', 'body', '`body` must be a JSON object.');
  return { body: body as Record<string, unknown> };
}
