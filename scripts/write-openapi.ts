// Regenerates docs/openapi.json from packages/protocol. A test fails when the file drifts.
import { writeFileSync } from 'node:fs';
import { buildOpenApi } from '../packages/protocol/src/openapi.ts';

writeFileSync(new URL('../docs/openapi.json', import.meta.url), `${JSON.stringify(buildOpenApi(), null, 2)}\n`);
console.log('wrote docs/openapi.json');
