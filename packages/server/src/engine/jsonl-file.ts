import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { InvalidRequest } from '../errors.ts';

/** OpenAI's limits on a batch's input file. */
export const BATCH_FILE_MAX_BYTES = 200 * 1024 * 1024;
export const BATCH_FILE_MAX_LINES = 50_000;

/**
 * Reads a JSONL file a line at a time (never whole: a batch file may be 200 MB) and calls `each`
 * with every non-empty line parsed; a line that is not a JSON object is refused by its number.
 * Returns the number of lines; more than `maxLines` is refused as soon as it is seen.
 */
export async function readJsonl(
  path: string,
  maxLines: number,
  each?: (value: Record<string, unknown>, line: number) => void | Promise<void>,
): Promise<number> {
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let count = 0;
  let number = 0;
  try {
    for await (const text of lines) {
      number++;
      if (text.trim() === '') continue;
      if (++count > maxLines)
        throw new InvalidRequest(
          'invalid_file',
          `\`file\` has more than ${maxLines} lines, the most a batch takes.`,
          'file',
        );
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        value = undefined;
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value))
        throw new InvalidRequest('invalid_file', `\`file\` line ${number} is not a JSON object (JSONL).`, 'file');
      await each?.(value as Record<string, unknown>, number);
    }
  } finally {
    lines.close();
  }
  return count;
}
