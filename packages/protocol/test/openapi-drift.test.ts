import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { buildOpenApi } from '../src/openapi.ts';

it('docs/openapi.json matches the protocol schemas (run `npm run openapi` after changing them)', () => {
  const committed = JSON.parse(readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8'));
  assert.deepEqual(committed, JSON.parse(JSON.stringify(buildOpenApi())));
});
