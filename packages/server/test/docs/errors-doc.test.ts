import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../../', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.contract.ts') ? [path] : [];
  });
}

// Codes are the first string argument of an error constructor, or a `code:` in an error body.
const PATTERNS = [
  /new (?:InvalidRequest|Conflict|Forbidden|Gone|Unprocessable|GenerationError|ImageRejected)\(\s*'([a-z_]+)'/g,
  /new ApiError\(\s*\d+,\s*'[a-z_]+',\s*'([a-z_]+)'/g,
  /(?<!readonly )code: '([a-z_]+)'/g,
];

it('docs/errors.md lists every error code the server can produce', () => {
  const doc = readFileSync(join(root, 'docs/errors.md'), 'utf8');
  const missing = new Set<string>();
  for (const file of sources(join(root, 'packages/server/src'))) {
    const text = readFileSync(file, 'utf8');
    for (const pattern of PATTERNS) {
      for (const match of text.matchAll(pattern)) if (!doc.includes(`\`${match[1]}\``)) missing.add(`${match[1]} (${file.slice(root.length)})`);
    }
  }
  for (const what of ['task', 'file', 'model']) if (!doc.includes(`\`${what}_not_found\``)) missing.add(`${what}_not_found`);
  assert.deepEqual([...missing], [], 'codes missing from docs/errors.md');
});
