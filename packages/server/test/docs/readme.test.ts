import { it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describeEnvironment } from '../../src/config.ts';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const readme = readFileSync(`${root}README.md`, 'utf8');

// The README's examples run on a machine with no internet: they use only files of the
// repository and links into it.
it('links only into the repository, and every file it names exists', () => {
  const links = [...readme.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]);
  assert.deepEqual(
    links.filter((l) => /^[a-z]+:/i.test(l)),
    [],
    'no link leaves the repository',
  );
  for (const link of links) assert.ok(existsSync(`${root}${link.split('#')[0]}`), `${link} exists`);
  for (const [path] of readme.matchAll(/docs\/samples\/[\w.-]+/g))
    assert.ok(existsSync(`${root}${path}`), `${path} exists`);
});

it('shows text-to-video before image-to-video, and sets every shell variable its curl examples use', () => {
  const tryIt = readme.slice(readme.indexOf('### Try it'), readme.indexOf('- **Edits**'));
  assert.ok(tryIt.indexOf('"prompt":"sunset over the ocean') < tryIt.indexOf('"image"'), 'text-to-video first');
  const code = [...tryIt.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]).join('\n');
  const used = new Set([...code.matchAll(/\$\{?([A-Z_]+)\b/g)].map((m) => m[1]));
  const set = new Set([...code.matchAll(/^([A-Z_]+)=/gm)].map((m) => m[1]));
  assert.deepEqual(
    [...used].filter((v) => !set.has(v)),
    [],
    'every variable is set before use',
  );
});

it('names every environment variable the server reads in its configuration table', () => {
  const table = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('### The model catalog'));
  const named = new Set([...table.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]));
  assert.deepEqual(
    describeEnvironment()
      .map((v) => v.name)
      .filter((name) => !named.has(name)),
    [],
    'missing from the README',
  );
});
