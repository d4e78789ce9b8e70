import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { API_ERROR_CODES } from '../../src/errors.ts';
import { FAILURE_CODES, type Retried } from '../../src/domain/task-failure.ts';

const doc = readFileSync(fileURLToPath(new URL('../../../../docs/errors.md', import.meta.url)), 'utf8');

/** The rows of the first table under `heading`, as cells. */
function tableRows(heading: string): string[][] {
  const section = doc.split(/^## /m).find((s) => s.startsWith(heading));
  assert.ok(section, `docs/errors.md has no section "${heading}"`);
  return section
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|[\s|-]+\|$/.test(line))
    .slice(1)
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
}

const codesIn = (cell: string) => [...cell.matchAll(/`([a-z0-9_]+)`/g)].map((m) => m[1]);
const sorted = (codes: Iterable<string>) => [...new Set(codes)].sort();
const RETRIED_WORDS: Record<string, Retried> = { yes: true, no: false, 'yes/no': 'depends' };

it('docs/errors.md lists exactly the API error codes of errors.ts', () => {
  const documented = tableRows('Request errors').flatMap((cells) => codesIn(cells[2]));
  assert.deepEqual(sorted(documented), sorted(API_ERROR_CODES));
});

it('docs/errors.md lists exactly the task failure codes of engine/task-failure.ts, and whether each is retried', () => {
  const documented = new Map<string, Retried | undefined>();
  for (const [codes, retried] of tableRows('Task failure codes'))
    for (const code of codesIn(codes)) documented.set(code, RETRIED_WORDS[retried]);
  assert.deepEqual(sorted(documented.keys()), sorted(FAILURE_CODES.map((f) => f.code)));
  for (const { code, retried } of FAILURE_CODES) assert.equal(documented.get(code), retried, `"retried?" of ${code}`);
});

it('lists no row twice', () => {
  const rows = doc.split('\n').filter((line) => line.startsWith('| ') && !/^\|[\s|-]+\|$/.test(line));
  const twice = rows.filter((row, i) => rows.indexOf(row) !== i);
  assert.deepEqual(twice, [], 'rows listed more than once');
});
